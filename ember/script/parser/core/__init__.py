"""``tvm.script.parser.core``: the parser's building blocks under TVM's module names.

``diagnostics.Source`` (a program's text, file and position, and its AST), ``evaluator.ExprEvaluator``
(Python expressions evaluated the way TVMScript evaluates them) and ``doc_core`` (the AST node
classes; ember's parser works on Python's own ``ast``).
"""

from . import diagnostics, doc_core, evaluator

__all__ = ["diagnostics", "doc_core", "evaluator"]

"""``ExprEvaluator``: evaluate one Python expression AST as TVMScript does (TVM's entry point)."""

from __future__ import annotations

import ast

from ember.script.parser.evaluator import Evaluator, Scope
from ember.script.parser.source import Source

__all__ = ["ExprEvaluator"]


class ExprEvaluator:
    """``ExprEvaluator.eval(parser, value_table, node)``: the value of ``node`` with the names
    of ``value_table`` in scope (``parser`` is TVM's; ember's evaluator does not need one)."""

    @staticmethod
    def eval(parser, value_table: dict, node: ast.AST):
        source = getattr(parser, "source", None)
        if not isinstance(source, Source):
            source = Source(ast.unparse(node))
        return Evaluator(source, Scope(dict(value_table))).eval(node)

"""ember.script.parser.core: Source, ExprEvaluator and doc_core under TVM's module names."""

import inspect

from ember.script.parser.core import doc_core
from ember.script.parser.core.diagnostics import Source
from ember.script.parser.core.evaluator import ExprEvaluator


def sample(a, b):
    return a + b


def test_source_of_a_function_knows_its_file_and_ast():
    src = Source(sample)
    assert src.source_name == inspect.getsourcefile(sample)
    assert src.start_line == inspect.getsourcelines(sample)[1] and src.start_column == 0
    assert src.source == inspect.getsource(sample)
    mod = src.as_ast()
    assert isinstance(mod, doc_core.Module) and isinstance(mod.body[0], doc_core.FunctionDef)


def test_expr_evaluator_uses_the_value_table():
    expr = Source("x[1:3], f(x[0], 2) // 2").as_ast().body[0].value
    assert ExprEvaluator.eval(None, {"x": [4, 5, 6], "f": lambda p, q: p * q}, expr) == ([5, 6], 4)

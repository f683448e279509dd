"""relax.utils: convert_to_expr, the args_converter decorators, copy_with_new_vars."""

from typing import List, Optional  # noqa: UP035 — args_converter.auto reads typing-style annotations

import pytest

from ember import relax, tir
from ember.ir import assert_structural_equal
from ember.relax import Expr
from ember.relax.utils import args_converter, convert_to_expr, copy_with_new_vars


def test_convert_to_expr_kinds():
    assert isinstance(convert_to_expr(1), relax.PrimValue) and str(convert_to_expr(1).value.dtype) == "int64"
    assert isinstance(convert_to_expr("s"), relax.StringImm)
    t = convert_to_expr((relax.const(1), (1, 2)))
    assert isinstance(t, relax.Tuple) and isinstance(t.fields[1], relax.Tuple)
    assert isinstance(convert_to_expr(()), relax.Tuple)
    with pytest.raises(TypeError, match="convert_to_expr: cannot convert object"):
        convert_to_expr(object())


def test_args_converter_named_and_auto():
    @args_converter.to_expr("a", "rest", "kw")
    def f(a, *rest, **kw):
        return a, rest, kw

    a, rest, kw = f(1, "x", (1, 1), k=None)
    assert isinstance(a, Expr) and all(isinstance(r, Expr) for r in rest) and kw["k"] is None

    @args_converter.auto
    def g(a: Expr, b: Optional[List[Expr]], c: int):  # noqa: UP006, UP045
        return a, b, c

    a, b, c = g(2, [1, "s"], 3)
    assert isinstance(a, Expr) and all(isinstance(x, Expr) for x in b) and c == 3
    assert g(2, None, 3)[1] is None
    with pytest.raises(TypeError, match="argument 'b' must be a list or tuple"):
        g(1, 5, 3)
    with pytest.raises(ValueError, match="has no parameters"):
        args_converter.to_expr("missing")(lambda a: a)


def test_copy_with_new_vars_fresh_params_and_dims():
    m = tir.Var("m", "int64")
    x = relax.Var("x", relax.TensorStructInfo((m,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("f", [x]):
        y = bb.emit(relax.op.add(x, x))
        z = bb.emit(relax.op.reshape(y, (m,)))
        bb.emit_func_output(z)
    func = bb.get()["f"]
    copy = copy_with_new_vars(func)
    assert_structural_equal(copy, func)
    assert copy.params[0] is not func.params[0]
    assert copy.params[0].struct_info.shape.values[0] is not m
    with pytest.raises(TypeError, match="func must be a relax.Function"):
        copy_with_new_vars(x)

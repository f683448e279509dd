"""IRModule, GlobalVar and the op registry."""

import pytest

from ember import tir
from ember.ir import GlobalVar, IRModule, Op, const, register_op, replace


def _func():
    A = tir.decl_buffer((4,), "float32", "A")
    i = tir.Var("i")
    body = tir.For(i, const(0), const(4), tir.ForKind.SERIAL, tir.BufferStore(A, const(0.0), (i,)))
    return tir.PrimFunc((A.data,), body, buffer_map={A.data: A})


def test_module_lookup():
    f = _func()
    mod = IRModule({"main": f})
    assert mod["main"] is f
    assert mod[mod.get_global_var("main")] is f
    assert "main" in mod and len(mod) == 1
    with pytest.raises(KeyError, match="no function named 'other'.*main"):
        mod["other"]


def test_from_expr_names_main_without_adding_a_symbol():
    mod = IRModule.from_expr(_func())  # as TVM's IRModule.FromExpr
    assert "main" in mod and "global_symbol" not in mod["main"].attrs


def test_global_var_compares_by_name():
    from ember.ir import structural_equal

    assert structural_equal(GlobalVar("f"), GlobalVar("f"))
    assert not structural_equal(GlobalVar("f"), GlobalVar("g"))


def test_registry_attrs():
    op = register_op("test.my_op", num_inputs=2)
    assert Op.get("test.my_op") is op
    assert op.get_attr("num_inputs") == 2
    with pytest.raises(ValueError, match="already set"):
        op.set_attr("num_inputs", 3)
    op.set_attr("num_inputs", 3, override=True)
    assert op.get_attr("num_inputs") == 3


def test_replace_returns_same_when_unchanged():
    f = _func()
    assert replace(f, body=f.body) is f
    g = replace(f, attrs={"x": 1})
    assert g is not f and g.body is f.body

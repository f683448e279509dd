"""ember.build / ember.lower: inputs, naming, targets, the returned runtime Module, errors."""

import re

import numpy as np
import pytest

import ember
from ember import te
from ember.ir import IRModule, Var, const
from ember.target import Target
from ember.tir import BufferStore, For, ForKind, PrimFunc, decl_buffer


def _add_one(symbol=None, n=8):
    A = decl_buffer((n,), "float32", "A")
    B = decl_buffer((n,), "float32", "B")
    a, b = Var("A", "handle"), Var("B", "handle")
    i = Var("i")
    body = For(i, const(0), const(n), ForKind.SERIAL, BufferStore(B, A[i] + 1.0, (i,)))
    attrs = {"global_symbol": symbol} if symbol else {}
    return PrimFunc((a, b), body, buffer_map={a: A, b: B}, attrs=attrs)


def _arrays(n=8):
    return np.arange(n, dtype="float32"), np.zeros(n, "float32")


def test_build_prim_func_default_target_and_call_forms():
    mod = ember.build(_add_one())
    assert isinstance(mod, ember.runtime.Module)
    a, b = _arrays()
    mod(a, b)
    np.testing.assert_array_equal(b, a + 1)
    b[:] = 0
    mod["main"](a, b)
    np.testing.assert_array_equal(b, a + 1)


def test_function_names_global_symbol_then_global_var():
    mod = ember.build(IRModule({"first": _add_one(), "second": _add_one(symbol="renamed")}), target="llvm")
    assert sorted(mod.function_names) == ["first", "renamed"]
    a, b = _arrays()
    mod["renamed"](a, b)
    np.testing.assert_array_equal(b, a + 1)
    with pytest.raises(AttributeError, match="no function 'second'"):
        mod["second"]


def test_build_name_argument_names_an_unnamed_func():
    mod = ember.build(_add_one(), target="llvm", name="add_one")
    assert mod.function_names == ["add_one"]
    a, b = _arrays()
    mod(a, b)  # the only function is the entry
    np.testing.assert_array_equal(b, a + 1)


def test_positional_target_and_current_target():
    a, b = _arrays()
    ember.build(_add_one(), "llvm")(a, b)
    np.testing.assert_array_equal(b, a + 1)
    with Target("llvm -num-cores=1"):
        mod = ember.build(_add_one())
    assert str(mod.target) == "llvm -num-cores=1"


def test_target_host_is_attached():
    mod = ember.build(_add_one(), target="llvm", target_host="llvm")
    assert mod.target.host == Target("llvm")


def test_time_evaluator():
    mod = ember.build(_add_one())
    a, b = _arrays()
    result = mod.time_evaluator("main", ember.cpu(), number=3, repeat=2)(a, b)
    assert result.mean > 0
    assert len(result.results) == 2


def test_te_reduction_through_the_lowering_pipeline():
    n, m = 6, 10
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="B")
    mod = ember.build(te.create_prim_func([A, B]), target="llvm")
    a = np.random.default_rng(0).standard_normal((n, m)).astype("float32")
    b = np.zeros(n, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, (a * 2).sum(axis=1), rtol=1e-5)


def test_build_list_of_te_tensors():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] * A[i], name="B")
    mod = ember.build([A, B], target="llvm", name="square")
    a = np.arange(4, dtype="float32")
    b = np.zeros(4, "float32")
    mod["square"](a, b)
    np.testing.assert_array_equal(b, a * a)


def test_lower_returns_lowered_irmodule():
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda i, j: A[i, j] + 1.0, name="B")
    lowered = ember.lower(te.create_prim_func([A, B]))
    assert isinstance(lowered, IRModule)
    func = lowered["main"]
    from ember.tir.transform import check_lowered

    check_lowered(func)
    assert "def main" in lowered.script() or "main" in lowered.script()


def test_unknown_target_kind():
    with pytest.raises(ValueError, match=re.escape("unknown target kind 'llvmx': expected one of")):
        ember.build(_add_one(), target="llvmx")


def test_bad_inputs():
    with pytest.raises(TypeError, match="inputs must be a PrimFunc, an IRModule of PrimFuncs.*got int"):
        ember.build(42)


def test_irmodule_with_non_primfunc_is_refused():
    class NotAPrimFunc(ember.ir.BaseFunc):
        __slots__ = ()
        attrs = {}

    with pytest.raises(TypeError, match="'f' is a NotAPrimFunc, not a PrimFunc; build Relax programs with"):
        ember.build(IRModule({"f": NotAPrimFunc()}))


def test_schedule_without_args_is_refused():
    Schedule = getattr(te, "Schedule", None)
    if Schedule is None:
        pytest.skip("te.Schedule (legacy stage API) not available yet")
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(ValueError, match="needs args"):
        ember.build(s, target="llvm")


def test_legacy_te_schedule_as_in_the_tvm_tutorial():
    if not hasattr(te, "create_schedule"):
        pytest.skip("te.create_schedule not available yet")
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    outer, inner = s[C].split(C.op.axis[0], factor=4)
    s[C].parallel(outer)
    fadd = ember.build(s, [A, B, C], "llvm", name="myadd")
    a = np.random.default_rng(0).random(1027).astype("float32")
    b = np.random.default_rng(1).random(1027).astype("float32")
    c = np.zeros_like(a)
    fadd(a, b, c)
    np.testing.assert_array_equal(c, a + b)
    assert fadd.function_names == ["myadd"]
    assert isinstance(ember.lower(s, [A, B, C], simple_mode=True), IRModule)

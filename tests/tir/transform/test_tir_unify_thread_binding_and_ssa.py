"""UnifyThreadBinding (one loop per thread tag per kernel) and ConvertSSA (one definition
per Var in a module)."""

import pytest

import ember as tvm
from ember import tir
from ember.script import tir as T
from ember.tir.transform._common import TransformError


def _thread_loops(func):
    return [x for x in tvm.tir.collect(func.body, lambda x: isinstance(x, tir.For))
            if x.kind == tir.ForKind.THREAD_BINDING]


def test_sibling_thread_loops_are_merged():
    @T.prim_func
    def two_stages(A: T.Buffer((8, 64), "float32"), B: T.Buffer((8, 64), "float32")):
        for i in T.thread_binding(8, "blockIdx.x"):
            for j in T.thread_binding(64, "threadIdx.x"):
                B[i, j] = A[i, j] * T.float32(2)
            for k in T.thread_binding(64, "threadIdx.x"):
                B[i, k] = B[i, k] + T.float32(1)

    after = tvm.tir.transform.UnifyThreadBinding()(tvm.IRModule({"main": two_stages}))["main"]
    loops = _thread_loops(after)
    assert sorted(lp.thread_binding.thread_tag for lp in loops) == ["blockIdx.x", "threadIdx.x"]
    assert after.body.thread_binding.thread_tag == "blockIdx.x"  # launched outermost
    tx = after.body.body.loop_var
    stores = tvm.tir.collect(after.body, lambda x: isinstance(x, tir.BufferStore))
    assert all(s.indices[1].same_as(tx) for s in stores)


def test_different_extents_for_one_tag_are_refused():
    @T.prim_func
    def uneven(A: T.Buffer((8, 64), "float32")):
        for i in T.thread_binding(8, "blockIdx.x"):
            for j in T.thread_binding(64, "threadIdx.x"):
                A[i, j] = T.float32(0)
            for k in T.thread_binding(32, "threadIdx.x"):
                A[i, k] = T.float32(1)

    with pytest.raises(TransformError, match="same extent"):
        tvm.tir.transform.UnifyThreadBinding()(tvm.IRModule({"main": uneven}))


def test_convert_ssa_renames_rebound_let_var():
    var = tir.Var("v", "int32")
    body = tir.SeqStmt([tir.LetStmt(var, 16, tir.Evaluate(var)), tir.LetStmt(var, 32, tir.Evaluate(var))])
    mod = tvm.IRModule({"main": tir.PrimFunc([], body)})
    after = tvm.tir.transform.ConvertSSA()(mod)["main"]
    first, second = after.body.seq
    assert not first.var.same_as(second.var)
    assert first.body.value.same_as(first.var) and second.body.value.same_as(second.var)


def test_convert_ssa_renames_parameter_shared_by_two_functions():
    n = tir.Var("n", "int32")
    func = tir.PrimFunc([n], tir.Evaluate(n))
    mod = tvm.IRModule({"a": func, "b": func})
    after = tvm.tir.transform.ConvertSSA()(mod)
    assert after["a"].params[0].same_as(n)
    b = after["b"]
    assert not b.params[0].same_as(n) and b.body.value.same_as(b.params[0])


def test_convert_ssa_returns_ssa_module_unchanged():
    @T.prim_func
    def simple(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)

    mod = tvm.IRModule({"main": simple})
    assert tvm.tir.transform.ConvertSSA()(mod) is mod

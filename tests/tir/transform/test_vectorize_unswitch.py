"""VectorizeLoop: a loop-invariant if goes outside; branches vectorize or run serially."""

import numpy as np
import pytest

import ember
from ember import tir
from ember.script import tir as T
from ember.tir.functor import collect


@T.prim_func
def invariant_branch(a: T.handle, n: T.int32, x: T.int32):
    A = T.match_buffer(a, (8,), "float32")
    for i in T.vectorized(8):
        if x < n:
            A[i] = A[i] + T.float32(1)
        else:
            if i < n:
                A[i] = T.float32(2)


def _vectorize(func):
    return tir.transform.VectorizeLoop()(ember.IRModule({"main": func}))["main"]


def test_if_moves_outside_and_the_then_branch_is_vector_code():
    after = _vectorize(invariant_branch)
    assert isinstance(after.body, tir.IfThenElse)
    assert isinstance(after.body.then_case, tir.BufferStore)
    assert after.body.then_case.value.dtype.lanes == 8
    (serial,) = collect(after.body.else_case, lambda n: isinstance(n, tir.For))
    assert serial.kind == tir.ForKind.SERIAL and serial.loop_var.name == "i_s"


@pytest.mark.parametrize("n, x", [(5, 1), (5, 9), (0, 3)])
def test_unswitched_loop_gives_the_same_result(n, x):
    a = np.arange(8, dtype="float32")
    want = a + 1 if x < n else np.where(np.arange(8) < n, 2, a).astype("float32")
    out = ember.nd.array(a.copy())
    ember.build(invariant_branch, target="llvm")(out, n, x)
    np.testing.assert_allclose(out.numpy(), want)


def test_constant_guard_needs_no_runtime_test():
    @T.prim_func
    def f(A: T.Buffer(4, "int32")):
        for i in T.vectorized(4):
            if i < 8:
                A[i] = 1

    after = _vectorize(f)
    assert isinstance(after.body, tir.BufferStore) and after.body.value.dtype.lanes == 4

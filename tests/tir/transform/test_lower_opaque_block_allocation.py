"""LowerOpaqueBlock: strided buffers allocate their padded rows; block pragmas become attributes."""

import numpy as np

import ember
from ember import tir
from ember.script import tir as T
from ember.tir.functor import collect


@T.prim_func
def padded_rows(A: T.Buffer((4, 16), "float32"), C: T.Buffer((4, 16), "float32")):
    with T.block():
        B = T.alloc_buffer([4, 16], "float32", strides=[17, 1])
        for i, j in T.grid(4, 16):
            with T.block():
                B[i, j] = A[i, j] + T.float32(1)
        for i, j in T.grid(4, 16):
            with T.block():
                C[i, j] = B[i, j] * T.float32(2)


def _lower(func):
    return tir.transform.LowerOpaqueBlock()(ember.IRModule({"main": func}))["main"]


def test_strided_buffer_allocates_the_stride():
    (alloc,) = collect(_lower(padded_rows).body, lambda n: isinstance(n, tir.Allocate))
    assert [int(e) for e in alloc.extents] == [4, 17]


def test_strided_buffer_program_runs():
    a = np.random.default_rng(0).uniform(size=(4, 16)).astype("float32")
    c = ember.nd.array(np.zeros((4, 16), "float32"))
    ember.build(padded_rows, target="llvm")(ember.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), (a + 1) * 2, rtol=1e-6)


def test_block_pragma_becomes_an_attribute():
    @T.prim_func
    def annotated():
        with T.block():
            T.block_attr({"pragma_unroll_hint": 1, "other": 2})
            T.evaluate(0)

    body = _lower(annotated).body
    assert isinstance(body, tir.AttrStmt) and body.attr_key == "pragma_unroll_hint"
    assert int(body.value) == 1 and isinstance(body.body, tir.Evaluate)

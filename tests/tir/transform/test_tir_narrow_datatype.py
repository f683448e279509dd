"""NarrowDataType: int64 index arithmetic is computed in int32 where it fits, stays wide where
one index would overflow, and int64 data keeps its type; results match numpy."""

import numpy as np

import ember as tvm
from ember import tir
from ember.script import tir as T


def _narrow(func, bits=32):
    return tvm.tir.transform.NarrowDataType(bits)(tvm.IRModule({"main": func}))["main"]


def test_small_loops_are_narrowed_and_compute_the_same():
    @T.prim_func
    def shift(A: T.Buffer((16,), "int64")):
        for i in range(T.int64(15)):
            A[i + T.int64(1)] = A[i] + T.int64(1)

    after = _narrow(shift)
    assert after.body.loop_var.dtype == "int32"
    store = after.body.body
    assert store.indices[0].dtype == "int32" and store.value.dtype == "int64"
    a = np.arange(16, dtype="int64")
    expected = a.copy()
    for i in range(15):
        expected[i + 1] = expected[i] + 1
    tvm.build(after, target="llvm")(a)
    np.testing.assert_array_equal(a, expected)


def _copy_loops(m, n):
    ib = tir.ir_builder.create()
    A = ib.buffer_ptr(tir.decl_buffer([m * n], name="A"))
    B = ib.buffer_ptr(tir.decl_buffer([m * n], name="B"))
    with ib.for_range(0, m, name="i") as i:
        with ib.for_range(0, n, name="j") as j:
            B[i * n + j] = A[i * n + j] + 1.0
    return tir.PrimFunc([], ib.get())


def test_overflowing_index_keeps_loops_wide():
    small = _narrow(_copy_loops(tir.const(2**10, "int64"), tir.const(2**10, "int64")))
    assert small.body.loop_var.dtype == "int32" and small.body.body.loop_var.dtype == "int32"
    big = _narrow(_copy_loops(tir.const(2**16, "int64"), tir.const(2**16, "int64")))
    assert big.body.loop_var.dtype == "int64"  # i * n + j reaches 2**32 - 1


def test_narrow_to_16_bits():
    after = _narrow(_copy_loops(2, 2), bits=16)
    assert after.body.loop_var.dtype == "int16"


def test_renormalize_split_pattern_keeps_values():
    from ember.tir.transform.renormalize_split_pattern import renormalize_split_pattern

    @T.prim_func
    def split_index(A: T.Buffer((512,), "int32")):
        for x in range(512):
            A[x] = x % 128 // 32 + x // 8 // 4

    after = renormalize_split_pattern(split_index)
    text = after.script()
    assert "x // 32 % 4" in text and "x // 8 // 4" not in text
    a = np.zeros(512, dtype="int32")
    tvm.build(after, target="llvm")(a)
    x = np.arange(512)
    np.testing.assert_array_equal(a, x % 128 // 32 + x // 32)


def test_auto_unroll_counts_nested_unrolled_loops_and_marks_without_explicit():
    ib = tir.ir_builder.create()
    n = tvm.te.size_var("n")
    A = ib.buffer_ptr(tir.decl_buffer((n,), "int64", "A"))
    with ib.for_range(n, n + 2, name="i") as i:  # extent (n + 2) - n: constant 2 once simplified
        with ib.for_range(0, 8, name="j", kind="unroll") as j:
            A[j + 1] = A[i] + 1
    mod = tvm.IRModule({"main": tir.PrimFunc([], ib.get())})
    with tvm.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_step": 16}}):
        assert not isinstance(tvm.tir.transform.UnrollLoop()(mod)["main"].body, tir.For)
    with tvm.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_step": 15}}):
        assert isinstance(tvm.tir.transform.UnrollLoop()(mod)["main"].body, tir.For)
    config = {"tir.UnrollLoop": {"auto_max_step": 16, "explicit_unroll": False}}
    with tvm.transform.PassContext(config=config):
        kept = tvm.tir.transform.UnrollLoop()(mod)["main"].body
    assert kept.kind == tir.ForKind.UNROLLED

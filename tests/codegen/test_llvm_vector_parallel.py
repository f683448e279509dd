"""Vector code (Ramp/Broadcast → LLVM vectors, gathers) and parallel loops (GOMP_parallel)."""

import numpy as np
import pytest

import ember
from ember.ir import Broadcast, IntImm, Ramp, Var, const
from ember.tir import BufferStore, For, ForKind, PrimFunc, decl_buffer, seq

from codegen_helpers import elementwise

I32 = "int32"


def _vector_add(lanes: int, n_vectors: int, dtype="float32", stride: int = 1) -> PrimFunc:
    """B[Ramp(i*lanes*stride, stride, lanes)] = A[...] + Broadcast(1, lanes)."""
    n = lanes * n_vectors * stride
    A = decl_buffer((n,), dtype, "A")
    B = decl_buffer((n,), dtype, "B")
    a, b = Var("A", "handle"), Var("B", "handle")
    i = Var("i", I32)
    index = Ramp(i * (lanes * stride), const(stride, I32), lanes)
    one = Broadcast(const(1, dtype), lanes)
    body = For(i, const(0, I32), const(n_vectors, I32), ForKind.SERIAL, BufferStore(B, A[index] + one, (index,)))
    return PrimFunc((a, b), body, buffer_map={a: A, b: B}, attrs={"global_symbol": "vadd", "tir.noalias": True})


@pytest.mark.parametrize("dtype", ["float32", "int8", "float64", "float16"])
def test_contiguous_ramp_is_one_vector_load_and_store(dtype):
    mod = ember.build(_vector_add(8, 4, dtype), target="llvm")
    a = np.arange(32).astype(dtype)
    b = np.zeros_like(a)
    mod(a, b)
    np.testing.assert_array_equal(b, a + 1)
    unopt = mod.get_source("ll-unopt")
    assert "load <8 x" in unopt and "store <8 x" in unopt


def test_strided_ramp_gathers_and_scatters():
    mod = ember.build(_vector_add(4, 3, "float32", stride=2), target="llvm")
    a = np.arange(24, dtype="float32")
    b = np.zeros_like(a)
    mod(a, b)
    expected = np.zeros_like(a)
    expected[::2] = a[::2] + 1
    np.testing.assert_array_equal(b, expected)


def test_broadcast_index_loads_one_element():
    A = decl_buffer((4,), "float32", "A")
    B = decl_buffer((8,), "float32", "B")
    a, b = Var("A", "handle"), Var("B", "handle")
    store = BufferStore(B, A[Broadcast(const(2, I32), 8)], (Ramp(const(0, I32), const(1, I32), 8),))
    mod = ember.build(PrimFunc((a, b), store, buffer_map={a: A, b: B}), target="llvm")
    x = np.array([1, 2, 3, 4], "float32")
    out = np.zeros(8, "float32")
    mod(x, out)
    np.testing.assert_array_equal(out, np.full(8, 3, "float32"))


def test_bool_vectors():
    n = 16
    A = decl_buffer((n,), "float32", "A")
    B = decl_buffer((n,), "bool", "B")
    a, b = Var("A", "handle"), Var("B", "handle")
    idx = Ramp(const(0, I32), const(1, I32), n)
    store = BufferStore(B, A[idx] > Broadcast(const(0.0, "float32"), n), (idx,))
    mod = ember.build(PrimFunc((a, b), store, buffer_map={a: A, b: B}), target="llvm")
    x = np.linspace(-1, 1, n).astype("float32")
    out = np.zeros(n, bool)
    mod(x, out)
    np.testing.assert_array_equal(out, x > 0)


def test_symbolic_loop_is_vectorised_by_llvm():
    mod = ember.build(elementwise(lambda a: a + 1.0, ["float32"], "float32"), target="llvm")
    assert "x float>" in mod.get_source("ll")


def test_parallel_loop_runs_on_gomp():
    mod = ember.build(elementwise(lambda a: a * 2.0, ["float32"], "float32", kind=ForKind.PARALLEL), target="llvm")
    assert "GOMP_parallel" in mod.get_source("ll")
    for n in (1, 3, 1001):
        a = np.random.default_rng(n).standard_normal(n).astype("float32")
        b = np.zeros_like(a)
        mod(a, b)
        np.testing.assert_array_equal(b, a * 2)


def test_parallel_with_offset_min_and_num_cores():
    n = 50
    A = decl_buffer((n,), "int32", "A")
    a = Var("A", "handle")
    i = Var("i", I32)
    body = For(i, const(10, I32), const(30, I32), ForKind.PARALLEL, BufferStore(A, i * 2, (i,)))
    mod = ember.build(PrimFunc((a,), body, buffer_map={a: A}), target="llvm -num-cores=3")
    assert "GOMP_parallel" in mod.get_source("ll-unopt")
    out = np.zeros(n, "int32")
    mod(out)
    expected = np.zeros(n, "int32")
    expected[10:40] = np.arange(10, 40) * 2
    np.testing.assert_array_equal(out, expected)


def test_nested_parallel_runs_only_the_outer_in_parallel():
    rows, cols = 9, 13
    A = decl_buffer((rows * cols,), "int32", "A")
    a = Var("A", "handle")
    i, j = Var("i", I32), Var("j", I32)
    inner = For(j, const(0, I32), const(cols, I32), ForKind.PARALLEL, BufferStore(A, i * 100 + j, (i * cols + j,)))
    body = For(i, const(0, I32), const(rows, I32), ForKind.PARALLEL, inner)
    mod = ember.build(PrimFunc((a,), body, buffer_map={a: A}), target="llvm")
    assert mod.get_source("ll-unopt").count("call void @\"GOMP_parallel\"") == 1
    out = np.zeros(rows * cols, "int32")
    mod(out)
    np.testing.assert_array_equal(out.reshape(rows, cols), np.arange(rows)[:, None] * 100 + np.arange(cols))


def test_vector_lanes_in_seq():
    # two vector statements in a row share the loop body
    n = 16
    A = decl_buffer((n,), "float32", "A")
    a = Var("A", "handle")
    lo = Ramp(const(0, I32), const(1, I32), 8)
    hi = Ramp(const(8, I32), const(1, I32), 8)
    body = seq(BufferStore(A, Broadcast(const(1.5, "float32"), 8), (lo,)),
               BufferStore(A, A[lo] * Broadcast(const(2.0, "float32"), 8), (hi,)))
    mod = ember.build(PrimFunc((a,), body, buffer_map={a: A}), target="llvm")
    out = np.zeros(n, "float32")
    mod(out)
    np.testing.assert_array_equal(out, [1.5] * 8 + [3.0] * 8)
    assert isinstance(lo.lanes, int) and not isinstance(lo.lanes, IntImm)

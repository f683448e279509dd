"""Reductions across GPU threads: warp shuffles, shared-memory trees, and refused shapes."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember import te, tir

from cuda_helpers import needs_gpu, needs_nvrtc


def row_reduce(threads: int, rows_per_block: int = 1, op: str = "sum", n: int = 256):
    """B[i] = reduce_k A[i, k] with k split and its inner part bound to threadIdx.x."""
    A = te.placeholder((128, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    reducer = {"sum": te.sum, "max": te.max, "min": te.min}[op]
    B = te.compute((128,), lambda i: reducer(A[i, k], axis=k), name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    i, kk = sch.get_loops(sch.get_block("B"))
    ko, ki = sch.split(kk, [None, threads])
    if rows_per_block > 1:
        io, ii = sch.split(i, [None, rows_per_block])
        sch.bind(io, "blockIdx.x")
        sch.bind(ii, "threadIdx.y")
    else:
        sch.bind(i, "blockIdx.x")
    sch.reorder(ki, ko)
    sch.bind(ki, "threadIdx.x")
    return sch


def test_warp_shuffle_for_a_warp_of_threads():
    src = ember.build(row_reduce(32).mod, target="cuda").get_source("cuda")
    assert src.count("__shfl_down_sync(4294967295U, B_red_local[0], ") == 5
    assert "__syncthreads" not in src and "__shared__" not in src
    assert "if ((k_1 == 0))" in src


def test_warp_shuffle_with_several_rows_per_block():
    src = ember.build(row_reduce(16, rows_per_block=4).mod, target="cuda").get_source("cuda")
    assert "__shfl_down_sync(4294967295U, B_red_local[0], 8, 16)" in src


@pytest.mark.parametrize("threads", [128, 48])
def test_shared_memory_tree(threads):
    src = ember.build(row_reduce(threads, op="max").mod, target="cuda").get_source("cuda")
    assert f"__shared__ __align__(16) float B_red_shared[{threads}];" in src
    tree_steps = src.count("B_red_shared[k_1] = max(") + src.count("B_red_shared[0] = max(")
    assert src.count("__syncthreads();") == tree_steps + 1


@needs_nvrtc
@pytest.mark.parametrize("threads, rows", [(32, 1), (16, 4), (128, 1), (48, 1)])
def test_allreduce_compiles_to_ptx(threads, rows):
    ptx = ember.build(row_reduce(threads, rows).mod, target="cuda").get_source("ptx")
    assert ("shfl.sync.down" in ptx) == (threads <= 32)


@needs_gpu
@pytest.mark.parametrize("threads, rows, op", [(32, 1, "sum"), (16, 4, "max"), (128, 1, "sum"), (48, 1, "min")])
def test_allreduce_numeric(threads, rows, op):
    mod = ember.build(row_reduce(threads, rows, op).mod, target="cuda")
    dev = ember.cuda(0)
    a = np.random.default_rng(2).standard_normal((128, 256)).astype("float32")
    b = ember.nd.empty((128,), "float32", dev)
    mod(ember.nd.array(a, dev), b)
    expected = {"sum": a.sum(1), "max": a.max(1), "min": a.min(1)}[op]
    np.testing.assert_allclose(b.numpy(), expected, rtol=1e-4, atol=1e-4)

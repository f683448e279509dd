"""The classic stage API on the GPU: bind, cache_read into shared memory, compute_at under
thread loops (cooperative fetch), virtual threads, and T.launch_thread."""

from __future__ import annotations

import numpy as np

import ember
from ember import te
from ember.script import tir as T

from cuda_helpers import needs_gpu, needs_nvrtc


def shared_matmul_stage(n: int = 256, tile: int = 16):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    i, j = s[C].op.axis
    bi, ti = s[C].split(i, factor=tile)
    bj, tj = s[C].split(j, factor=tile)
    s[C].reorder(bi, bj, ti, tj)
    ko, _ = s[C].split(s[C].op.reduce_axis[0], factor=tile)
    s[C].bind(bi, te.thread_axis("blockIdx.y"))
    s[C].bind(bj, te.thread_axis("blockIdx.x"))
    s[C].bind(ti, te.thread_axis("threadIdx.y"))
    s[C].bind(tj, te.thread_axis("threadIdx.x"))
    s[AA].compute_at(s[C], ko)
    x, y = s[AA].op.axis
    s[AA].bind(x, te.thread_axis("threadIdx.y"))  # cooperative fetch: each thread loads one element
    s[AA].bind(y, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


def test_cooperative_fetch_into_shared():
    s, args = shared_matmul_stage()
    src = ember.build(s, args, target="cuda").get_source("cuda")
    assert "__shared__ __align__(16) float A_shared[256];" in src
    assert "int ax0 = ((int)threadIdx.y);" in src and "int ax1 = ((int)threadIdx.x);" in src
    fetch = src.index("A_shared[((ax0 * 16) + ax1)] = A[")
    assert src.index("__syncthreads();", fetch) < src.index("for (int k_1", fetch)
    assert src.count("__syncthreads();") == 2


@needs_nvrtc
def test_cooperative_fetch_ptx():
    s, args = shared_matmul_stage()
    assert "bar.sync" in ember.build(s, args, target="cuda").get_source("ptx")


def test_virtual_threads_become_unrolled_loops():
    A = te.placeholder((1024,), name="A")
    B = te.compute((1024,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    bx, rest = s[B].split(B.op.axis[0], factor=256)
    vx, tx = s[B].split(rest, nparts=2)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(vx, te.thread_axis("vthread"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    src = ember.build(s, [A, B], target="cuda").get_source("cuda")
    assert "#pragma unroll" in src and "< 2; ++" in src
    assert "__launch_bounds__(128)" in src


@T.prim_func
def launch_thread_add_one(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (256,))
    B = T.match_buffer(b, (256,))
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 64)
    B[bx * 64 + tx] = A[bx * 64 + tx] + T.float32(1)


def test_launch_thread_attributes():
    mod = ember.build(launch_thread_add_one, target="cuda")
    src = mod.get_source("cuda")
    assert "__launch_bounds__(64)" in src and "blockIdx.x" in src
    assert "(4, 1, 1), (64, 1, 1)" in mod.get_source()


@needs_gpu
def test_cooperative_fetch_numeric():
    s, args = shared_matmul_stage(n=64)
    mod = ember.build(s, args, target="cuda")
    dev = ember.cuda(0)
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((64, 64), "float32"), rng.standard_normal((64, 64), "float32")
    c = ember.nd.empty((64, 64), "float32", dev)
    mod(ember.nd.array(a, dev), ember.nd.array(b, dev), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)

"""CUDA codegen: hand-bound TensorIR matmul with a shared-memory tile and barriers."""

from __future__ import annotations

import re

import numpy as np

import ember
from ember import tir
from ember.script import tir as T

from cuda_helpers import needs_gpu, needs_nvrtc, nvcc_ptx


@T.prim_func
def matmul_64(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (64, 64))
    B = T.match_buffer(b, (64, 64))
    C = T.match_buffer(c, (64, 64))
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def shared_tile_schedule(scope: str = "shared"):
    sch = tir.Schedule(matmul_64)
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    io, ii = sch.split(i, [None, 16])
    jo, ji = sch.split(j, [None, 16])
    ko, ki = sch.split(k, [None, 16])
    sch.reorder(io, jo, ii, ji, ko, ki)
    sch.bind(io, "blockIdx.y")
    sch.bind(jo, "blockIdx.x")
    sch.bind(ii, "threadIdx.y")
    sch.bind(ji, "threadIdx.x")
    b_shared = sch.cache_read(block, 1, scope)  # reads are (A, B)
    sch.compute_at(b_shared, ko)
    return sch


def test_shared_tile_source():
    mod = ember.build(shared_tile_schedule().mod, target="cuda")
    src = mod.get_source("cuda")
    assert "__launch_bounds__(256)" in src
    assert "__shared__ __align__(16) float B_shared[" in src
    assert "blockIdx.y" in src and "threadIdx.y" in src
    # a barrier after filling the tile (before it is read) and one before it is refilled
    body = src[src.index("for (int k_0"):]
    fill, use = body.index("B_shared["), body.index("for (int k_1")
    first_sync = body.index("__syncthreads();")
    assert fill < first_sync < use
    assert body.count("__syncthreads();") == 2


@needs_nvrtc
def test_shared_tile_ptx(tmp_path):
    mod = ember.build(shared_tile_schedule().mod, target="cuda -arch=sm_80")
    ptx = mod.get_source("ptx")
    assert "bar.sync" in ptx and ".shared" in ptx
    nvcc_ptx(mod.get_source("cuda"), tmp_path)


@needs_nvrtc
def test_dynamic_shared_memory(tmp_path):
    mod = ember.build(shared_tile_schedule("shared.dyn").mod, target="cuda")
    src = mod.get_source("cuda")
    assert "extern __shared__ __align__(16) unsigned char ember_dyn_shmem[];" in src
    assert "(float*)(ember_dyn_shmem + 0LL)" in src
    launch = re.search(r"_launch\('matmul_64_kernel', _dev, \(4, 4, 1\), \(16, 16, 1\), (\d+), ", mod.get_source())
    assert launch and int(launch.group(1)) >= 16 * 16 * 4  # at least one 16x16 float tile per block
    assert ".extern .shared" in mod.get_source("ptx")


@needs_gpu
def test_shared_tile_numeric():
    mod = ember.build(shared_tile_schedule().mod, target="cuda")
    dev = ember.cuda(0)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 64), "float32"), rng.standard_normal((64, 64), "float32")
    c = ember.nd.empty((64, 64), "float32", dev)
    mod(ember.nd.array(a, dev), ember.nd.array(b, dev), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)

"""The interpreter runs what tir.Schedule primitives produce (and their lowered forms)."""

import numpy as np
import pytest

import ember
from ember import te, tir
from ember.tir import interpreter

N = 8


@pytest.fixture(scope="module")
def matmul_plus_one():
    A = te.placeholder((N, N), name="A")
    B = te.placeholder((N, N), name="B")
    k = te.reduce_axis((0, N), name="k")
    C = te.compute((N, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((N, N), lambda i, j: C[i, j] + 1.0, name="D")
    rng = np.random.default_rng(0)
    a, b = rng.random((N, N), dtype="float32"), rng.random((N, N), dtype="float32")
    return te.create_prim_func([A, B, D]), a, b, a @ b + 1


def _decompose(sch):
    blk = sch.get_block("C")
    i, j, k = sch.get_loops(blk)
    io, ii = sch.split(i, [None, 4])
    sch.reorder(io, j, k, ii)
    sch.decompose_reduction(blk, k)


def _rfactor(sch):
    _, _, k = sch.get_loops(sch.get_block("C"))
    _, ki = sch.split(k, [None, 4])
    sch.rfactor(ki, 0)


def _caches(sch):
    blk = sch.get_block("C")
    cr = sch.cache_read(blk, 0, "shared")
    cw = sch.cache_write(blk, 0, "local")
    i, j, _ = sch.get_loops(blk)
    sch.compute_at(cr, i)
    sch.reverse_compute_at(cw, j)
    sch.storage_align(cr, 0, 0, 16, 1)


def _blockize(sch):
    i, j, k = sch.get_loops(sch.get_block("C"))
    io, ii = sch.split(i, [None, 4])
    jo, ji = sch.split(j, [None, 4])
    sch.reorder(io, jo, k, ii, ji)
    sch.blockize(ii)


def _layout(sch):
    sch.transform_layout(sch.get_block("C"), ("write", 0), lambda i, j: (j, i))


def _gpu_bind(sch):
    i, j, _ = sch.get_loops(sch.get_block("C"))
    bo, bi = sch.split(sch.fuse(i, j), [None, 16])
    sch.bind(bo, "blockIdx.x")
    sch.bind(bi, "threadIdx.x")


def _inline_vectorize(sch):
    sch.compute_at(sch.get_block("C"), sch.get_loops(sch.get_block("D"))[0])
    _, j = sch.get_loops(sch.get_block("D"))[:2]
    sch.vectorize(j)


@pytest.mark.parametrize("apply", [_decompose, _rfactor, _caches, _blockize, _layout, _gpu_bind,
                                   _inline_vectorize])
@pytest.mark.parametrize("lowered", [False, True])
def test_scheduled_program_keeps_meaning(matmul_plus_one, apply, lowered):
    func, a, b, ref = matmul_plus_one
    sch = tir.Schedule(func)
    apply(sch)
    mod = ember.lower(sch.mod) if lowered else sch.mod
    d = np.zeros((N, N), "float32")
    interpreter.run(mod, a, b, d)
    np.testing.assert_allclose(d, ref, rtol=1e-5)

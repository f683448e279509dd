"""The issue's batched matmul + ReLU example: TVMScript in, a hand schedule (split, reorder,
reverse_compute_at, decompose_reduction, parallel, vectorize, unroll) out, compared
structurally with the expected TVMScript and numerically with numpy."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.ir import assert_structural_equal
from ember.script import tir as T


@T.prim_func
def expected_batch_matmul_relu(A: T.Buffer((16, 128, 128), "float32"), B: T.Buffer((16, 128, 128), "float32"),
                               D: T.Buffer((16, 128, 128), "float32")):
    T.func_attr({"global_symbol": "batch_matmul_relu", "tir.noalias": True})
    Y = T.alloc_buffer((16, 128, 128))
    for b in T.parallel(16):
        for j_0, i_0 in T.grid(2, 32):
            for i_1_init, j_1_init in T.grid(4, 64):
                with T.block("Y_init"):
                    vb = T.axis.spatial(16, b)
                    vi = T.axis.spatial(128, i_0 * 4 + i_1_init)
                    vj = T.axis.spatial(128, j_0 * 64 + j_1_init)
                    T.reads()
                    T.writes(Y[vb, vi, vj])
                    Y[vb, vi, vj] = T.float32(0.0)
            for k in range(128):
                for i_1 in T.unroll(4):
                    for j_1_0 in T.unroll(4):
                        for j_1_1 in T.vectorized(16):
                            with T.block("Y_update"):
                                vb = T.axis.spatial(16, b)
                                vi = T.axis.spatial(128, i_0 * 4 + i_1)
                                vj = T.axis.spatial(128, j_0 * 64 + j_1_0 * 16 + j_1_1)
                                vk = T.axis.reduce(128, k)
                                T.reads(Y[vb, vi, vj], A[vb, vi, vk], B[vb, vk, vj])
                                T.writes(Y[vb, vi, vj])
                                Y[vb, vi, vj] = Y[vb, vi, vj] + A[vb, vi, vk] * B[vb, vk, vj]
            for ax0 in range(4):
                for ax1 in T.vectorized(64):
                    with T.block("D"):
                        vb = T.axis.spatial(16, b)
                        vi = T.axis.spatial(128, i_0 * 4 + ax0)
                        vj = T.axis.spatial(128, j_0 * 64 + ax1)
                        T.reads(Y[vb, vi, vj])
                        T.writes(D[vb, vi, vj])
                        D[vb, vi, vj] = T.max(Y[vb, vi, vj], T.float32(0.0))


@pytest.fixture(scope="module")
def scheduled(bench_gemm):
    return bench_gemm.schedule_batch_matmul_relu(bench_gemm.batch_matmul_relu_func())


def test_schedule_gives_the_expected_tvmscript(scheduled):
    assert_structural_equal(scheduled.mod["main"], expected_batch_matmul_relu)


def test_printed_schedule_parses_back_to_the_same_module(scheduled):
    text = scheduled.mod.script()
    reparsed = ember.script.from_source(text)
    assert_structural_equal(reparsed, scheduled.mod)


@pytest.mark.parametrize("target", ["llvm", "llvm -fast-math-contract"])
def test_scheduled_and_unscheduled_match_numpy(bench_gemm, scheduled, target):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 128, 128), dtype="float32")
    b = rng.standard_normal((16, 128, 128), dtype="float32")
    expected = np.maximum(a @ b, 0)
    for mod in (bench_gemm.batch_matmul_relu_func(), scheduled.mod):
        d = np.full((16, 128, 128), np.nan, "float32")
        ember.build(mod, target=target)(a, b, d)
        np.testing.assert_allclose(d, expected, rtol=1e-4, atol=1e-4)


def test_intermediate_is_compacted_to_the_register_tile(scheduled):
    """Y (16×128×128 before scheduling) shrinks to the 4×64 tile written in one i_0 step."""
    from ember.tir.stmt import Allocate
    from ember.tir.functor import collect
    from ember.tir.transform import lower_for_codegen

    lowered = lower_for_codegen(scheduled.mod)
    allocs = collect(lowered["main"].body, lambda n: isinstance(n, Allocate))
    assert [(a.buffer_var.name, [int(e.value) for e in a.extents]) for a in allocs] == [("Y", [256])]


def test_tile_size_that_does_not_divide_is_refused(bench_gemm):
    with pytest.raises(ValueError, match=r"nr=96 must divide the matrix size \(128\)"):
        bench_gemm.schedule_batch_matmul_relu(bench_gemm.batch_matmul_relu_func(), nr=96)

"""The hand-written GEMM schedule (benchmarks/bench_gemm.py) at 128³: numerics, trace,
and the micro-kernel it compiles to (FMA on zmm registers, accumulators never spilled)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import ember
from ember.ir import structural_equal
from ember.tir import ForKind, Schedule
from ember.tir.functor import collect
from ember.tir.schedule.trace import Trace
from ember.tir.stmt import For

N = 128


def host_has_avx512() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


@pytest.fixture(scope="module")
def scheduled(bench_gemm):
    return bench_gemm.schedule_gemm(bench_gemm.matmul_func(N))


@pytest.fixture(scope="module")
def built(bench_gemm, scheduled):
    return ember.build(scheduled.mod, target=bench_gemm.GEMM_TARGET)


def _inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, n), dtype="float32"), rng.standard_normal((n, n), dtype="float32")


def test_scheduled_gemm_matches_numpy(built):
    a, b = _inputs(N)
    c = np.zeros((N, N), "float32")
    built(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_scheduled_gemm_is_exact_without_contraction(scheduled):
    """Plain ``llvm`` keeps a*b+c unfused: same numbers as the unscheduled kernel's order."""
    a, b = _inputs(N, seed=1)
    c = np.zeros((N, N), "float32")
    ember.build(scheduled.mod, target="llvm")(a, b, c)
    expected = np.zeros((N, N), "float32")
    for k in range(N):  # the reduction order of the schedule: k ascending, float32 rounding
        expected = (expected + np.outer(a[:, k], b[k, :])).astype("float32")
    np.testing.assert_array_equal(c, expected)


def test_schedule_has_the_planned_loop_kinds(scheduled):
    loops = collect(scheduled.mod["main"].body, lambda n: isinstance(n, For))
    kinds = [loop.kind for loop in loops]
    assert kinds.count(ForKind.PARALLEL) == 1
    assert kinds.count(ForKind.UNROLLED) == 2  # micro-tile rows and zmm columns
    assert kinds.count(ForKind.VECTORIZED) == 3  # micro-kernel, B packing, write-back


def test_b_is_packed_into_column_panels(scheduled):
    script = scheduled.mod.script()
    assert re.search(r"B_global\[v1 // 64, v0, v1 % 64\] = B\[v0, v1\]", script), script


def test_trace_replays_to_the_same_module(bench_gemm, scheduled):
    fresh = Schedule(bench_gemm.matmul_func(N))
    scheduled.trace.apply_to_schedule(fresh)
    assert structural_equal(fresh.mod, scheduled.mod)
    text = str(scheduled.trace)
    for step in ("cache_read", "transform_layout", "cache_write", "reverse_compute_at",
                 "decompose_reduction", "parallel", "vectorize", "unroll"):
        assert f"sch.{step}(" in text


def test_trace_survives_json(bench_gemm, scheduled):
    data = json.loads(json.dumps(scheduled.trace.as_json()))
    fresh = Schedule(bench_gemm.matmul_func(N))
    Trace.from_json(data).apply_to_schedule(fresh)
    assert structural_equal(fresh.mod, scheduled.mod)


@pytest.mark.skipif(not host_has_avx512(), reason="the host has no AVX-512")
def test_micro_kernel_is_zmm_fma_without_spills(bench_gemm, built):
    kernel = bench_gemm.micro_kernel_asm(built.get_source("asm"))
    fmas = [line for line in kernel.splitlines() if "vfmadd" in line]
    assert len(fmas) >= 16, kernel
    assert all("zmm" in line for line in fmas)
    assert "vbroadcastss" in kernel  # A broadcast across the 16 lanes
    assert "rsp" not in kernel, "accumulators spilled to the stack:\n" + kernel


def test_contract_flag_only_with_the_target_option(bench_gemm, scheduled):
    assert "fmul contract" in ember.build(scheduled.mod, target=bench_gemm.GEMM_TARGET).get_source("ll-unopt")
    assert "contract" not in ember.build(scheduled.mod, target="llvm").get_source("ll-unopt")


@pytest.mark.parametrize("kwargs, message", [
    ({"mr": 3}, r"mr=3 must divide the matrix size \(128\)"),
    ({"nr": 48}, r"nr=48 must divide the matrix size \(128\)"),
    ({"lanes": 24}, r"lanes=24 must divide nr \(64\)"),
])
def test_tile_sizes_that_do_not_divide_are_refused(bench_gemm, kwargs, message):
    with pytest.raises(ValueError, match=message):
        bench_gemm.schedule_gemm(bench_gemm.matmul_func(N), **kwargs)

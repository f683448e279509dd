"""The parallel + vectorised vector add schedule (benchmarks/bench_vector_add.py)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.tir import ForKind
from ember.tir.functor import collect
from ember.tir.stmt import For

N = 1 << 16


@pytest.mark.parametrize("threads, lanes", [(2, 64), (1, 16), (4, 32)])
def test_vector_add_matches_numpy(bench_vector_add, threads, lanes):
    sch = bench_vector_add.schedule_vector_add(bench_vector_add.vector_add_func(N), threads, lanes)
    mod = ember.build(sch.mod, target="llvm")
    rng = np.random.default_rng(threads)
    x, y = rng.standard_normal(N, dtype="float32"), rng.standard_normal(N, dtype="float32")
    z = np.zeros(N, "float32")
    mod(x, y, z)
    np.testing.assert_array_equal(z, x + y)


def test_vector_add_loops_are_parallel_then_vectorised(bench_vector_add):
    sch = bench_vector_add.schedule_vector_add(bench_vector_add.vector_add_func(N))
    loops = collect(sch.mod["main"].body, lambda n: isinstance(n, For))[::-1]  # outermost first
    assert [(loop.kind, int(loop.extent.value)) for loop in loops] == [
        (ForKind.PARALLEL, 2), (ForKind.SERIAL, N // 128), (ForKind.VECTORIZED, 64)]


def test_vector_add_compiles_to_wide_vector_ops(bench_vector_add):
    sch = bench_vector_add.schedule_vector_add(bench_vector_add.vector_add_func(N))
    ll = ember.build(sch.mod, target="llvm").get_source("ll")
    assert "fadd <" in ll and "GOMP_parallel" in ll


def test_sizes_that_do_not_divide_are_refused(bench_vector_add):
    with pytest.raises(ValueError, match=r"threads × lanes = 3 × 64 must divide the vector length 65536"):
        bench_vector_add.schedule_vector_add(bench_vector_add.vector_add_func(N), threads=3)


def test_nontemporal_annotation_marks_the_stores(bench_vector_add):
    func = bench_vector_add.vector_add_func(N)
    streaming = ember.build(bench_vector_add.schedule_vector_add(func).mod, target="llvm")
    plain = ember.build(bench_vector_add.schedule_vector_add(func, nontemporal=False).mod, target="llvm")
    assert "!nontemporal" in streaming.get_source("ll-unopt")
    assert "!nontemporal" not in plain.get_source("ll-unopt")
    assert "movnt" in streaming.get_source("asm")

"""Parallel loops whose iterations are claimed in runs (``codegen.PARALLEL_CLAIMS_PER_THREAD``
> 0, the default), each thread from its own segment first (``PARALLEL_OWN_SEGMENTS``, the
default) or all from one shared counter, or split statically (0): every iteration runs exactly
once (odd extents, offset mins, fewer iterations than runs, nested loops, teams of 1, 3 and more
threads than segment counters), a failed check inside a run is reported, the build cache
tells the settings apart."""

import numpy as np
import pytest

import ember
from ember.codegen.llvm import codegen, parallel
from ember.ir import StringImm, Var, const
from ember.tir import AssertStmt, BufferStore, For, ForKind, PrimFunc, decl_buffer

I32 = "int32"


@pytest.fixture(params=[(0, True), (1, True), (3, True), (8, True), (1, False), (8, False)],
                ids=["static", "own1", "own3", "own8", "shared1", "shared8"])
def claims(request, monkeypatch):
    claims, own_segments = request.param
    monkeypatch.setattr(codegen, "PARALLEL_CLAIMS_PER_THREAD", claims)
    monkeypatch.setattr(codegen, "PARALLEL_OWN_SEGMENTS", own_segments)
    return claims


def _count_each_index(lo: int, hi: int, n: int, target: str = "llvm"):
    """A kernel adding 1 at every index in [lo, hi) of an n-element array, in parallel."""
    A = decl_buffer((n,), I32, "A")
    a = Var("A", "handle")
    i = Var("i", I32)
    body = For(i, const(lo, I32), const(hi - lo, I32), ForKind.PARALLEL, BufferStore(A, A[i] + 1, (i,)))
    return ember.build(PrimFunc((a,), body, buffer_map={a: A}), target=target)


@pytest.mark.parametrize("lo,hi", [(0, 1), (0, 7), (10, 40), (3, 1004)])
@pytest.mark.parametrize("target", ["llvm", "llvm -num-cores=3"])
def test_every_iteration_runs_once(claims, lo, hi, target):
    mod = _count_each_index(lo, hi, hi + 5, target)
    assert ("atomicrmw add" in mod.get_source("ll-unopt")) == (hi - lo > 1 and claims > 0)  # one iteration: no loop
    out = np.zeros(hi + 5, I32)
    for _ in range(3):
        mod(out)
    expected = np.zeros(hi + 5, I32)
    expected[lo:hi] = 3
    np.testing.assert_array_equal(out, expected)


def test_empty_loop_runs_nothing(claims):
    mod = _count_each_index(4, 4, 8)
    out = np.zeros(8, I32)
    mod(out)
    np.testing.assert_array_equal(out, np.zeros(8, I32))


def test_nested_parallel_claims_only_the_outer(claims):
    rows, cols = 9, 13
    A = decl_buffer((rows * cols,), I32, "A")
    a = Var("A", "handle")
    i, j = Var("i", I32), Var("j", I32)
    inner = For(j, const(0, I32), const(cols, I32), ForKind.PARALLEL, BufferStore(A, i * 100 + j, (i * cols + j,)))
    body = For(i, const(0, I32), const(rows, I32), ForKind.PARALLEL, inner)
    mod = ember.build(PrimFunc((a,), body, buffer_map={a: A}), target="llvm")
    assert mod.get_source("ll-unopt").count("atomicrmw add") == (claims > 0)
    out = np.zeros(rows * cols, I32)
    mod(out)
    np.testing.assert_array_equal(out.reshape(rows, cols), np.arange(rows)[:, None] * 100 + np.arange(cols))


def test_failed_check_in_a_claimed_run_is_reported(claims):
    n = Var("n", I32)
    A = decl_buffer((n,), "float32", "A")
    a = Var("A", "handle")
    i = Var("i", I32)
    check = AssertStmt(A[i] >= const(0.0, "float32"), StringImm("A must be non-negative"),
                       BufferStore(A, A[i] + 1.0, (i,)))
    mod = ember.build(PrimFunc((a,), For(i, const(0, I32), n, ForKind.PARALLEL, check), buffer_map={a: A}),
                      target="llvm")
    ok = np.zeros(100, "float32")
    mod(ok)
    np.testing.assert_array_equal(ok, np.ones(100))
    bad = np.zeros(100, "float32")
    bad[57] = -1
    with pytest.raises(ember.runtime.ArgumentError, match="A must be non-negative"):
        mod(bad)


def test_claimed_runs_are_the_default_and_the_build_cache_keeps_them_apart(monkeypatch):
    assert codegen.PARALLEL_CLAIMS_PER_THREAD > 0 and codegen.PARALLEL_OWN_SEGMENTS
    claimed = _count_each_index(0, 64, 64)
    monkeypatch.setattr(codegen, "PARALLEL_OWN_SEGMENTS", False)
    shared = _count_each_index(0, 64, 64)
    assert "omp_get_thread_num" in claimed.get_source("ll-unopt")  # which segment is its own
    assert "omp_get_thread_num" not in shared.get_source("ll-unopt")
    monkeypatch.setattr(codegen, "PARALLEL_OWN_SEGMENTS", True)
    monkeypatch.setattr(codegen, "PARALLEL_CLAIMS_PER_THREAD", 0)
    static = _count_each_index(0, 64, 64)
    assert "atomicrmw" not in static.get_source("ll-unopt")
    assert "atomicrmw add" in claimed.get_source("ll-unopt")


def test_relax_build_cache_keeps_the_settings_apart(monkeypatch):
    from ember import relax
    from ember.relax import build_cache

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((64, 32), "float32"))
    with bb.function("main", [x]):
        gv = bb.emit_te(lambda a: ember.te.compute(a.shape, lambda i, j: a[i, j] + 1.0, name="add1"), x)
        bb.emit_func_output(gv)
    mod = bb.get()
    prims = ember.IRModule({g: f for g, f in mod.functions.items() if isinstance(f, PrimFunc)})
    key_static = build_cache.make_key(prims, ember.target.Target("llvm"), True)
    if key_static is None:
        pytest.skip("the Relax build cache is off (EMBER_BUILD_CACHE=0)")
    monkeypatch.setattr(codegen, "PARALLEL_CLAIMS_PER_THREAD", codegen.PARALLEL_CLAIMS_PER_THREAD + 1)
    key_claims = build_cache.make_key(prims, ember.target.Target("llvm"), True)
    assert key_claims != key_static
    monkeypatch.setattr(codegen, "PARALLEL_OWN_SEGMENTS", not codegen.PARALLEL_OWN_SEGMENTS)
    assert build_cache.make_key(prims, ember.target.Target("llvm"), True) not in (key_static, key_claims)


@pytest.mark.parametrize("threads", [1, 3, parallel.MAX_SEGMENTS + 3])
def test_every_iteration_runs_once_at_other_team_sizes(claims, threads):
    from ember.runtime import get_num_threads, set_num_threads

    mod = _count_each_index(0, 101, 101)
    before = get_num_threads()
    set_num_threads(threads)
    try:
        out = np.zeros(101, I32)
        mod(out)
    finally:
        set_num_threads(before)
    np.testing.assert_array_equal(out, np.ones(101, I32))

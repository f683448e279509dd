"""ember.runtime.set_num_threads / get_num_threads: sources of the count, validation, and
that targets (hence default schedules) follow it; parallel kernels stay correct."""

import numpy as np
import pytest

import ember
from ember.runtime import get_num_threads, set_num_threads


@pytest.fixture
def clean_env(monkeypatch):
    for var in ("EMBER_NUM_THREADS", "TVM_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_env_order(clean_env):
    clean_env.setenv("OMP_NUM_THREADS", "3")
    assert get_num_threads() == 3
    clean_env.setenv("TVM_NUM_THREADS", "5")
    assert get_num_threads() == 5
    clean_env.setenv("EMBER_NUM_THREADS", "2")
    assert get_num_threads() == 2
    assert ember.target.Target("llvm").num_cores == 2


def test_default_is_physical_cores(clean_env):
    assert 1 <= get_num_threads() <= (__import__("os").cpu_count() or 1)


def test_set_num_threads_reaches_new_targets(clean_env):
    set_num_threads(1)
    assert get_num_threads() == 1
    assert ember.target.Target("llvm").num_cores == 1
    set_num_threads(2)
    assert ember.target.Target("llvm").num_cores == 2


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_set_num_threads_rejects(bad):
    with pytest.raises(ValueError, match="set_num_threads: n must be a positive int"):
        set_num_threads(bad)


def test_parallel_kernel_correct_after_change(clean_env):
    from ember import te

    a = te.placeholder((4096,), name="A")
    b = te.compute((4096,), lambda i: a[i] * 2.0, name="B")
    sch = ember.tir.Schedule(te.create_prim_func([a, b]))
    (loop,) = sch.get_loops(sch.get_block("B"))
    outer, _ = sch.split(loop, factors=[8, None])
    sch.parallel(outer)
    mod = ember.build(sch.mod, target="llvm")
    x = np.arange(4096, dtype="float32")
    for n in (1, 2):
        set_num_threads(n)
        y = np.zeros_like(x)
        mod(x, y)
        np.testing.assert_array_equal(y, 2 * x)


def test_set_num_threads_sets_openmp_team_size(clean_env):
    from ember.runtime.threading import _libgomp

    from ember.codegen.llvm.jit import load_runtime_libraries  # loads libgomp as a JIT build does

    load_runtime_libraries()
    lib = _libgomp()
    if lib is None:
        pytest.skip("libgomp is not loaded in this process")
    set_num_threads(1)
    assert lib.omp_get_max_threads() == 1
    set_num_threads(2)
    assert lib.omp_get_max_threads() == 2

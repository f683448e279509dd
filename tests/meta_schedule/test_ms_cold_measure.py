"""Cold-cache measurement (``EvaluatorConfig(enable_cpu_cache_flush=True)``): every timed call
takes the next of several argument copies, enough that a copy comes back only after more
than ``cold_bytes()`` of the others have gone through the caches."""

import numpy as np
from ms_kernels import matmul_64

import ember
from ember import meta_schedule as ms
from ember.meta_schedule.arg_info import ArgInfo
from ember.meta_schedule.runner import measure as runner_measure


def test_rotation_copies_cover_the_cold_bytes():
    assert runner_measure.rotation_copies(1 << 20, 8 << 20) == 9  # 8 others of 1 MiB between reuses
    assert runner_measure.rotation_copies(3 << 20, 8 << 20) == 4  # 3 others: 9 MiB
    assert runner_measure.rotation_copies(64 << 20, 8 << 20) == 2  # larger than the caches: two copies
    assert runner_measure.rotation_copies(16, 8 << 20, limit=100) == 100
    assert runner_measure.rotation_copies(0, 1024) == 1025


def test_cold_bytes_default_and_override(monkeypatch):
    monkeypatch.delenv("EMBER_MS_COLD_BYTES", raising=False)
    assert runner_measure.cold_bytes() >= 1 << 20
    monkeypatch.setenv("EMBER_MS_COLD_BYTES", "12345")
    assert runner_measure.cold_bytes() == 12345


def test_argument_copies_are_distinct_arrays_with_the_same_values():
    rng = np.random.default_rng(0)
    args = [ember.nd.array(rng.uniform(-1, 1, (64, 64)).astype("float32")) for _ in range(3)]
    copies = runner_measure.argument_copies(args, 5 * 3 * 64 * 64 * 4)  # five others between reuses
    assert len(copies) == 6 and copies[0] is args
    for copy in copies[1:]:
        for a, b in zip(args, copy):
            assert a is not b
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    copies[1][0].copyfrom(np.zeros((64, 64), "float32"))  # no storage shared with the original
    assert np.abs(args[0].numpy()).sum() > 0


def test_measure_with_cache_flush_times_and_checks_the_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_MS_COLD_BYTES", str(1 << 20))
    mod = ember.IRModule({"main": matmul_64})
    ref = runner_measure.make_reference(mod, "llvm", ArgInfo.from_entry_func(mod), str(tmp_path / "ref.npz"))
    lib = ember.build(mod, target="llvm")
    path = str(tmp_path / "k.so")
    lib.export_library(path)
    config = ms.EvaluatorConfig(number=2, repeat=3, min_repeat_ms=0, enable_cpu_cache_flush=True)
    secs = runner_measure.measure(path, ArgInfo.from_entry_func(mod), config, ref)
    assert len(secs) == 3 and all(s > 0 for s in secs)


def test_measure_clock_is_the_wall_clock_unless_thread_time_is_asked_for(monkeypatch):
    import time

    import pytest

    monkeypatch.delenv("EMBER_MS_CLOCK", raising=False)
    assert runner_measure.measure_clock() is time.perf_counter
    monkeypatch.setenv("EMBER_MS_CLOCK", "thread")
    assert runner_measure.measure_clock() is time.thread_time
    monkeypatch.setenv("EMBER_MS_CLOCK", "cpu")
    with pytest.raises(ValueError, match="EMBER_MS_CLOCK must be 'wall' or 'thread'"):
        runner_measure.measure_clock()

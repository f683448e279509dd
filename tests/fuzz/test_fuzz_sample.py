"""The fuzzers (``fuzz_*.py``) as tests: a fixed sample in CI (about half a minute), the
long runs on demand (``python -m pytest tests/fuzz -m slow --cases 5000``, or
``python tests/fuzz/fuzz_harness.py all --cases 5000``).  Each batch of cases runs in a
child process, so a crash fails the case that caused it instead of ending the run; a
failure names the seed and the command that reproduces it."""

import pytest

import fuzz_harness

CI_CASES = {"calls": 150, "schedules": 40, "tvmscript": 120, "relax": 30, "indices": 20, "ms_spaces": 0}
# MetaSchedule's spaces in CI: one case of each of these workloads (the long run takes them all)
CI_MS_WORKLOADS = ("conv_res3_3x3_s2_int32", "conv_stem_7x7_s2_int64", "depthwise_3x3_int64",
                   "max_pool_3x3_s2_int32", "batch_matmul_int64", "softmax_int32", "layer_norm_int64",
                   "lrn_int32", "relax_fused_conv2d_NCHWc_relu")


def _check(kind: str, seeds: list[int], batch: int) -> None:
    report = fuzz_harness.run(kind, seeds, batch=batch)
    assert report.cases == len(seeds)
    assert not report.failures, report.summary()


@pytest.mark.parametrize("kind", sorted(k for k, n in CI_CASES.items() if n))
def test_fuzz_sample(kind):
    _check(kind, list(range(CI_CASES[kind])), batch=CI_CASES[kind])


def test_fuzz_ms_spaces_sample():
    import fuzz_ms_spaces
    import ms_workloads

    names = ms_workloads.workload_names(fuzz_ms_spaces.TARGET)
    _check("ms_spaces", [names.index(n) for n in CI_MS_WORKLOADS], batch=len(CI_MS_WORKLOADS))


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(CI_CASES))
def test_fuzz_long(kind, request):
    cases = request.config.getoption("--cases")
    _check(kind, list(range(10_000, 10_000 + cases)), batch=50)


def test_a_crashing_case_is_a_failure_not_the_end(tmp_path, monkeypatch):
    crasher = tmp_path / "fuzz_crasher.py"
    crasher.write_text("import ctypes\n\ndef run_case(seed):\n"
                       "    if seed == 2:\n        ctypes.string_at(0)\n"
                       "    return None if seed != 3 else 'wrong'\n")
    monkeypatch.setattr(fuzz_harness, "HERE", str(tmp_path))
    report = fuzz_harness.run("crasher", list(range(5)), batch=5)
    assert report.cases == 5
    assert sorted(report.failures) == [2, 3]
    assert "the process died (signal SIGSEGV)" in report.failures[2]
    assert "fuzz_harness.py crasher --seed 2 --cases 1" in report.summary()

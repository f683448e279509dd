"""The classic example: tune_tir on a TVMScript matmul, then compile_tir; resume; reports."""

import json
import re

import numpy as np
import pytest
from ms_kernels import TARGET, fast_runner, matmul_64, run_matmul, shared_builder, small_search

import ember as tvm
from ember import meta_schedule as ms
from ember.target import Target


def _tune(work_dir, trials, cost_model, progress=False, **kwargs):
    return ms.tune_tir(mod=matmul_64, target=Target(TARGET), work_dir=str(work_dir), max_trials_global=trials,
                       num_trials_per_iter=3, builder=shared_builder(), runner=fast_runner(),
                       strategy=small_search(), cost_model=cost_model, progress=progress,
                       **{"seed": 5, **kwargs})


def test_tune_tir_random_then_xgb_resumes_then_compile_tir(tmp_path):
    target = Target(TARGET)
    _tune(tmp_path, 3, ms.RandomModel())
    lines = (tmp_path / "database_tuning_record.json").read_text().splitlines()
    index, (_trace, run_secs, target_str, args) = json.loads(lines[0])[0], json.loads(lines[0])[1][:4]
    assert index == 0 and isinstance(run_secs, list) and target_str.startswith("llvm")
    assert args[0] == ["TENSOR", "float32", [64, 64]]
    shash, text = json.loads((tmp_path / "database_workload.json").read_text().splitlines()[0])
    assert "T.prim_func" in text
    # a second run on the same work_dir resumes: records kept, the default seed not measured again
    database = _tune(tmp_path, 6, ms.XGBModel(num_warmup_samples=2))
    records = database.get_all_tuning_records()
    assert all(r.error_msg is None for r in records)
    # 6 distinct candidates, and the final confirmation re-measured the best and the default
    assert len({json.dumps(r.trace.as_json(remove_postproc=True)) for r in records}) == 6
    assert len(records) > 6
    sch = ms.tir_integration.compile_tir(database, matmul_64, target)
    assert sch is not None
    got, want = run_matmul(tvm.build(sch.mod, target=target))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    summary = (tmp_path / "tuning_summary.md").read_text()
    assert "speed-up over default" in summary and "| main |" in summary
    assert (tmp_path / "tuning_curves.png").stat().st_size > 1000


def test_max_time_stops_tuning(tmp_path, capsys):
    db = _tune(tmp_path, 1000, "random", max_time="1s", progress=True)
    assert 0 < len(db) < 1000
    # stderr is not a terminal here: progress comes as one line per batch, not as bars
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "task 1/1 main:" in ln]
    assert lines and re.search(r"\d+ trials \(\d+ failed\), (best [\d.]+ us|no valid)", lines[-1])


def test_tune_tir_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="mod must be a PrimFunc or an IRModule"):
        ms.tune_tir("matmul", TARGET, str(tmp_path), max_trials_global=1)
    with pytest.raises(ValueError, match="max_time must be seconds or a string"):
        ms.tune_tir(matmul_64, TARGET, str(tmp_path), max_trials_global=1, max_time="soon")
    with pytest.raises(ValueError, match="max_trials_global must be >= 1"):
        ms.tune_tir(matmul_64, TARGET, str(tmp_path), max_trials_global=0)
    with pytest.raises(ValueError, match="database='json' needs a work_dir"):
        ms.tune_tir(matmul_64, TARGET, None, max_trials_global=1)


def test_compile_tir_without_records_is_none():
    assert ms.tir_integration.compile_tir(ms.MemoryDatabase(), matmul_64, TARGET) is None

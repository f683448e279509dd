"""Cost models, features, worker pool, task scheduler policy, time budgets, reports."""

import os
import time

import numpy as np
import pytest
from ms_kernels import TARGET, matmul_64

from ember import meta_schedule as ms
from ember.meta_schedule.cost_model.feature_extractor import N_FEATURES, block_features
from ember.meta_schedule.runner import RunnerResult
from ember.meta_schedule.utils import parse_time
from ember.meta_schedule.worker_pool import WorkerPool


def _candidates(n):
    ctx = ms.TuneContext(matmul_64, target=TARGET, space_generator="post-order-apply",
                         search_strategy="replay-trace", rand_state=1)
    ctx.pre_tuning(max_trials=n, num_trials_per_iter=n)
    return ctx, ctx.generate_measure_candidates()


def test_block_features_describe_loops_and_accesses():
    ctx, cands = _candidates(2)
    feats = block_features(cands[0].sch.mod["main"])
    assert feats.shape[1] == N_FEATURES and feats.shape[0] >= 2  # init, update (and a cache write-back)
    assert np.isfinite(feats).all() and feats[:, 2].max() > 0  # a parallel loop


def test_xgb_model_trains_predicts_saves_and_loads(tmp_path):
    ctx, cands = _candidates(6)
    results = [RunnerResult([1e-3 * (n + 1)], None) for n in range(5)] + [RunnerResult(None, "crashed")]
    model = ms.XGBModel(num_warmup_samples=2)
    model.update(ctx, cands, results)
    assert model.booster is not None
    pred = model.predict(ctx, cands)
    assert pred.shape == (6,) and np.isfinite(pred).all()
    model.save(str(tmp_path / "m.pkl"))
    loaded = ms.XGBModel(path=str(tmp_path / "m.pkl"))
    np.testing.assert_allclose(loaded.predict(ctx, cands), pred)
    rnd = ms.RandomModel(seed=0)
    assert rnd.predict(ctx, cands).shape == (6,)
    with pytest.raises(ValueError, match="cost_model must be 'xgb', 'random'"):
        ms.cost_model.create("mlp")


def test_worker_pool_survives_errors_crashes_and_hangs():
    pool = WorkerPool(max_workers=1, timeout_sec=8)
    outs = pool.map(len, [("abc",)])
    assert outs[0].value == 3
    outs = [pool._one(int, ("x",)), pool._one(os.abort, ()), pool._one(time.sleep, (120,)), pool._one(len, ("ab",))]
    assert "ValueError" in outs[0].error and outs[0].error.startswith("Traceback")  # the worker's traceback
    assert "WorkerCrashed" in outs[1].error and "signal" in outs[1].error
    assert "TimeoutError" in outs[2].error
    assert outs[3].value == 2 and outs[3].error is None
    pool.shutdown()
    with pytest.raises(ValueError, match="max_workers must be >= 1"):
        WorkerPool(0)


def test_gradient_based_prefers_the_task_that_improves():
    from ember.meta_schedule.task_scheduler import GradientBased, TaskState

    sched = GradientBased(alpha=1.0, window_size=1)
    sched.tasks = [TaskState(None, rounds=[1.0, 1.0]), TaskState(None, rounds=[1.0, 0.5]), TaskState(None)]
    assert sched.next_task_id() == 2  # never tuned: goes first
    sched.tasks[2].rounds = [0.1, 0.1]
    assert sched.next_task_id() == 1
    sched.tasks[1].done = True
    assert sched.next_task_id() in (0, 2)
    with pytest.raises(ValueError, match="alpha must be in"):
        GradientBased(alpha=2)


def test_parse_time_and_evaluator_config_errors():
    assert parse_time("10m") == 600 and parse_time("90s") == 90 and parse_time(2) == 2.0
    assert parse_time(None) is None
    with pytest.raises(ValueError, match="max_time must be seconds"):
        parse_time("-3m")
    with pytest.raises(ValueError, match="number must be >= 1"):
        ms.EvaluatorConfig(number=0)
    with pytest.raises(TypeError, match="evaluator_config must be an EvaluatorConfig"):
        ms.LocalRunner(evaluator_config={"number": 1})


def test_summary_table_reports_speedup_over_default(tmp_path):
    from ember.meta_schedule.report import write_report
    from ember.meta_schedule.task_scheduler import TaskState

    ctx, _ = _candidates(1)
    task = TaskState(ctx, flops=2 * 64**3, trials=10, failed=1, best_secs=1e-4, default_secs=2e-4,
                     history=[(1, 0.5, 2e-4), (10, 3.0, 1e-4)])
    table = write_report([task], str(tmp_path))
    assert "| main | 1 | 10 | 1 | 100.0 | 5.2 | 200.0 | 2.00× |" in table
    assert (tmp_path / "tuning_curves.png").exists()

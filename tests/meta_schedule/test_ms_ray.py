"""Scale-out: RayBuilder / RayRunner on a local Ray cluster with 2 worker slots; the driver
keeps the database, and compile_tir applies it."""

import numpy as np
import pytest
from ms_kernels import TARGET, matmul_64, run_matmul, small_search

import ember as tvm
from ember import meta_schedule as ms
from ember.target import Target

ray = pytest.importorskip("ray")

# starting a Ray cluster and its workers takes ~30-60 s on a busy 2-core machine
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_tune_on_ray_then_compile_tir(tmp_path, local_cluster):
    from ember.meta_schedule.distributed import RayBuilder, RayRunner

    target = Target(TARGET)
    config = ms.EvaluatorConfig(number=1, repeat=1, min_repeat_ms=1)
    database = ms.tune_tir(matmul_64, target, str(tmp_path), max_trials_global=4, num_trials_per_iter=4,
                           builder=RayBuilder(), runner=RayRunner(evaluator_config=config),
                           strategy=small_search(), cost_model="random", progress=False, seed=5)
    records = database.get_all_tuning_records()
    assert len(records) == 4 and all(r.is_valid for r in records), [r.error_msg for r in records]
    sch = ms.tir_integration.compile_tir(ms.JSONDatabase(work_dir=str(tmp_path)), matmul_64, target)
    got, want = run_matmul(tvm.build(sch.mod, target=target))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_ray_runner_reports_a_crashing_candidate(tmp_path, local_cluster):
    from test_ms_faults import _sabotage

    from ember.meta_schedule.builder import BuilderInput
    from ember.meta_schedule.distributed import RayBuilder, RayRunner
    from ember.meta_schedule.runner import RunnerInput

    mod = tvm.IRModule({"main": matmul_64})
    builder = RayBuilder()  # owns the directory of the libraries it returns
    built = builder.build([BuilderInput(_sabotage(mod, "crash"), TARGET), BuilderInput(mod, TARGET)])
    args = ms.ArgInfo.from_prim_func(matmul_64)
    results = [f.result() for f in RayRunner(evaluator_config=ms.EvaluatorConfig(1, 1, 1), timeout_sec=60).run(
        [RunnerInput(b.artifact_path, "llvm", args) for b in built])]
    assert results[0].error_msg is not None and results[0].run_secs is None
    assert results[1].error_msg is None and results[1].run_secs[0] > 0

"""``LocalRunner``: measures candidates one at a time in a worker process.

One worker (measurements run alone so they do not disturb each other); a candidate that
raises, computes a wrong result, crashes the worker (segfault) or runs past
``timeout_sec`` gets a ``RunnerResult`` with the error and the next one goes on."""

from __future__ import annotations

from ..worker_pool import WorkerPool
from .config import EvaluatorConfig
from .measure import measure
from .runner import RunnerFuture, RunnerInput, RunnerResult


class LocalRunner:
    def __init__(self, timeout_sec: float = 30.0, evaluator_config: EvaluatorConfig | None = None,
                 cooldown_sec: float = 0.0, alloc_repeat: int = 1, f_alloc_argument=None,
                 f_run_evaluator=None, f_cleanup=None, initializer=None):
        if timeout_sec <= 0:
            raise ValueError(f"LocalRunner: timeout_sec must be positive, got {timeout_sec}")
        if evaluator_config is not None and not isinstance(evaluator_config, EvaluatorConfig):
            raise TypeError(f"LocalRunner: evaluator_config must be an EvaluatorConfig, "
                            f"got {type(evaluator_config).__name__}")
        self.timeout_sec = timeout_sec
        self.evaluator_config = evaluator_config or EvaluatorConfig()
        self.f_run_evaluator = f_run_evaluator or measure
        self._pool = WorkerPool(1, timeout_sec, initializer)

    def run(self, runner_inputs: list[RunnerInput]) -> list[RunnerFuture]:
        args = [(r.artifact_path, r.args_info, self.evaluator_config, r.reference) for r in runner_inputs]
        futures = []
        for inp, o in zip(runner_inputs, self._pool.map(self.f_run_evaluator, args)):
            if inp.artifact_path is None:
                result = RunnerResult(None, "not built")
            elif o.error is None:
                result = RunnerResult(list(o.value), None)
            else:
                result = RunnerResult(None, o.error.strip().splitlines()[-1] if "Traceback" in o.error
                                      else o.error)
            futures.append(RunnerFuture(result))
        return futures

    def __del__(self):
        try:
            self._pool.shutdown()
        except Exception:  # noqa: BLE001
            pass

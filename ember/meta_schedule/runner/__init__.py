"""Runners time built candidates and check their results: ``LocalRunner`` (a worker
process), ``RayRunner`` (in ``ember.meta_schedule.distributed``); ``EvaluatorConfig``."""

from .config import EvaluatorConfig
from .local_runner import LocalRunner
from .runner import Runner, RunnerFuture, RunnerInput, RunnerResult, create

__all__ = ["EvaluatorConfig", "LocalRunner", "Runner", "RunnerFuture", "RunnerInput", "RunnerResult",
           "create"]

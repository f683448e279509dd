"""Task schedulers: which kernel of a model gets the next batch (``GradientBased``, ``RoundRobin``)."""

from .gradient_based import GradientBased
from .round_robin import RoundRobin
from .task_scheduler import TaskScheduler, TaskState

PyTaskScheduler = TaskScheduler

__all__ = ["GradientBased", "RoundRobin", "TaskScheduler", "TaskState", "PyTaskScheduler", "create"]


def create(kind="gradient", **kwargs):
    table = {"gradient": GradientBased, "round-robin": RoundRobin}
    if isinstance(kind, str):
        if kind not in table:
            raise ValueError(f"task_scheduler must be 'gradient', 'round-robin' or a TaskScheduler, got {kind!r}")
        return table[kind](**kwargs)
    return kind

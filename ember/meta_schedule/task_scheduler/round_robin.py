"""``RoundRobin``: tasks take turns, one batch each."""

from __future__ import annotations

from .task_scheduler import TaskScheduler


class RoundRobin(TaskScheduler):
    def __init__(self):
        self._last = -1

    def next_task_id(self) -> int:
        live = self._live()
        if not live:
            return -1
        later = [n for n in live if n > self._last]
        self._last = later[0] if later else live[0]
        return self._last

"""``GradientBased``: spend the next batch on the task whose weighted latency is expected
to drop the most (TVM's gradient-based scheduler).

After every task has had a batch, task i scores ``weight_i * (alpha * backward_i +
(1 - alpha) * forward_i)``: ``backward`` is how much its best latency fell per batch
over the last ``window_size`` batches, ``forward`` the optimistic guess that another
batch gains as much as an average batch so far (best / batches).  Highest score wins."""

from __future__ import annotations

from ..database import FAILED_SECS
from .task_scheduler import TaskScheduler


class GradientBased(TaskScheduler):
    def __init__(self, alpha: float = 0.2, window_size: int = 3, seed: int = -1):
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"GradientBased: alpha must be in [0, 1], got {alpha}")
        if window_size < 1:
            raise ValueError(f"GradientBased: window_size must be >= 1, got {window_size}")
        self.alpha, self.window_size = alpha, window_size

    def next_task_id(self) -> int:
        live = self._live()
        if not live:
            return -1
        fresh = [n for n in live if not self.tasks[n].rounds]
        if fresh:
            return fresh[0]
        best, pick = -1.0, live[0]
        for n in live:
            t = self.tasks[n]
            rounds = [r for r in t.rounds if r < FAILED_SECS]
            if not rounds:
                return n  # nothing valid yet: keep looking
            w = min(self.window_size, len(rounds) - 1)
            backward = (rounds[-1 - w] - rounds[-1]) / w if w > 0 else 0.0
            forward = rounds[-1] / len(t.rounds)
            score = t.weight * (self.alpha * backward + (1 - self.alpha) * forward)
            if score > best:
                best, pick = score, n
        return pick

"""``ReplayTrace``: each candidate is a design space's trace replayed with fresh decisions."""

from __future__ import annotations

from .search_strategy import StrategyBase


class ReplayTrace(StrategyBase):
    def __init__(self, max_fail_count: int = 100):
        self.max_fail_count = max_fail_count

    def generate_measure_candidates(self):
        if self.trials >= self.max_trials:
            return None
        out, fails = [], 0
        while len(out) < self._budget() and fails < self.max_fail_count:
            got = self._fresh(self.rng.choice(self.design_spaces), resample=True)
            if got is None:
                fails += 1
                continue
            self.measured.add(got[1])
            out.append(self._candidate(got[0]))
        return out or None

"""``ReplayFunc``: each candidate comes from running the space generator again with a new
seed (the rules re-sample as they go), then the postprocessors."""

from __future__ import annotations

from .search_strategy import StrategyBase


class ReplayFunc(StrategyBase):
    def __init__(self, max_fail_count: int = 100):
        self.max_fail_count = max_fail_count

    def generate_measure_candidates(self):
        if self.trials >= self.max_trials:
            return None
        out, fails = [], 0
        gen = self.context.space_generator
        while len(out) < self._budget() and fails < self.max_fail_count:
            spaces = gen.generate_design_space(self.context.mod)
            got = self._fresh(self.rng.choice(spaces).trace, resample=False)
            if got is None:
                fails += 1
                continue
            self.measured.add(got[1])
            out.append(self._candidate(got[0]))
        return out or None

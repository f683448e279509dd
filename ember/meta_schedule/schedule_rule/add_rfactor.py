"""``AddRFactor``: for a reduction whose spatial part is small (at most ``max_jobs_per_core``
× cores, and no bigger than the reduction), also offers the space where the fused
reduction loop is split (sampled) and its inner part factored out with ``rfactor``: a
partial-result block whose inner loop is spatial (vectorisable, parallelisable), then a
short reduction of the partials."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ember.tir.schedule import BlockRV, Schedule, ScheduleError

from ..block_facts import block_facts
from .schedule_rule import num_cores


@dataclass
class AddRFactor:
    max_jobs_per_core: int = 16
    max_innermost_factor: int | None = None
    _cores: int = 1

    def _initialize_with_tune_context(self, context) -> None:
        self._cores = num_cores(context.target)

    def clone(self) -> AddRFactor:
        return AddRFactor(self.max_jobs_per_core, self.max_innermost_factor, self._cores)

    def apply(self, sch: Schedule, block: BlockRV) -> list[Schedule]:
        facts = block_facts(sch, block)
        if not facts.reduction or not facts.one_to_one or not re.fullmatch("S*R+", facts.kinds):
            return [sch]
        loops = sch.get_loops(block)
        extent = {"S": 1, "R": 1}
        for lp, k in zip(loops, facts.kinds):
            e = sch.get(lp).extent
            extent[k] *= int(e.value) if hasattr(e, "value") else 1 << 30
        # worth it when the spatial part alone cannot keep the cores busy and is not the bigger part
        if extent["S"] > self.max_jobs_per_core * self._cores or extent["S"] > extent["R"]:
            return [sch]
        trial = sch.copy()
        try:
            r_loops = [lp for lp, k in zip(loops, facts.kinds) if k == "R"]
            fused = trial.fuse(*r_loops) if len(r_loops) > 1 else r_loops[0]
            factors = trial.sample_perfect_tile(fused, n=2, max_innermost_factor=self.max_innermost_factor or 64)
            _, inner = trial.split(fused, factors=factors)
            # partial results indexed last by the inner part, so the partial-sum loop vectorises
            trial.rfactor(inner, factor_axis=facts.kinds.count("S"))
        except ScheduleError:
            return [sch]
        return [sch, trial]

"""``AddRFactor``: for a reduction with too little spatial work to keep every core busy,
also offers the space where the fused reduction loop is split (sampled) and its outer
part factored out with ``rfactor`` into a parallel partial-sum block."""

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
        spatial = 1
        for lp, k in zip(loops, facts.kinds):
            if k == "S":
                spatial *= int(sch.get(lp).extent.value) if hasattr(sch.get(lp).extent, "value") else 1 << 30
        if spatial >= self.max_jobs_per_core * self._cores:
            return [sch]
        trial = sch.copy()
        try:
            r_loops = [lp for lp, k in zip(loops, facts.kinds) if k == "R"]
            fused = trial.fuse(*r_loops) if len(r_loops) > 1 else r_loops[0]
            factors = trial.sample_perfect_tile(fused, n=2, max_innermost_factor=self.max_innermost_factor or 64)
            outer, inner = trial.split(fused, factors=factors)
            trial.rfactor(outer, factor_axis=0)
        except ScheduleError:
            return [sch]
        return [sch, trial]

"""``CrossThreadReduction`` (GPU): splits a reduction's fused reduction loop by a sampled
thread count and binds the inner part to ``threadIdx.x`` so threads reduce together."""

from __future__ import annotations

from dataclasses import dataclass

from ember.tir.schedule import BlockRV, Schedule, ScheduleError

from ..block_facts import block_facts


@dataclass(frozen=True)
class CrossThreadReduction:
    thread_extents: tuple = (4, 8, 16, 32, 64, 128, 256, 512)

    def _initialize_with_tune_context(self, context) -> None:
        pass

    def clone(self) -> CrossThreadReduction:
        return self

    def apply(self, sch: Schedule, block: BlockRV) -> list[Schedule]:
        facts = block_facts(sch, block)
        if not facts.reduction or not facts.one_to_one or sch.get(block).annotations:
            return [sch]
        trial = sch.copy()
        try:
            loops = trial.get_loops(block)
            r_loops = [lp for lp, k in zip(loops, facts.kinds) if k == "R"]
            fused = trial.fuse(*r_loops) if len(r_loops) > 1 else r_loops[0]
            n = len(self.thread_extents)
            threads = trial.sample_categorical(list(self.thread_extents), [1.0 / n] * n)
            _, inner = trial.split(fused, factors=[None, threads])
            trial.bind(inner, "threadIdx.x")
        except ScheduleError:
            return [sch]
        return [sch, trial]

"""``AutoBind`` (GPU): a block whose loops are not bound to threads gets its spatial
loops fused, split by a sampled thread count and bound to ``blockIdx.x`` / ``threadIdx.x``."""

from __future__ import annotations

from dataclasses import dataclass

from ember.tir import ForKind
from ember.tir.schedule import BlockRV, Schedule, ScheduleError

from ..block_facts import block_facts


@dataclass(frozen=True)
class AutoBind:
    max_threadblocks: int = 256
    thread_extents: tuple = (32, 64, 128, 256, 512, 1024)
    max_threads_per_block: int = -1

    def _initialize_with_tune_context(self, context) -> None:
        pass

    def clone(self) -> AutoBind:
        return self

    def apply(self, sch: Schedule, block: BlockRV) -> list[Schedule]:
        if sch.get(block).name_hint == "root":
            return [sch]
        loops = sch.get_loops(block)
        if not loops or any(sch.get(lp).kind == ForKind.THREAD_BINDING for lp in loops):
            return [sch]
        facts = block_facts(sch, block)
        spatial = [lp for lp, k in zip(loops, facts.kinds) if k == "S"] if facts.one_to_one else loops[:1]
        lead = []
        for lp in loops:  # the leading run of spatial loops
            if lp not in spatial:
                break
            lead.append(lp)
        if not lead:
            return [sch]
        trial = sch.copy()
        try:
            fused = trial.fuse(*lead) if len(lead) > 1 else lead[0]
            n = len(self.thread_extents)
            threads = trial.sample_categorical(list(self.thread_extents), [1.0 / n] * n)
            outer, inner = trial.split(fused, factors=[None, threads])
            trial.bind(outer, "blockIdx.x")
            trial.bind(inner, "threadIdx.x")
        except ScheduleError:
            return [sch]
        return [trial]

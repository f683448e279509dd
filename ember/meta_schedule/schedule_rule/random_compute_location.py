"""``RandomComputeLocation``: moves a block that is not an output, not inlined and not
tiled under a sampled loop of its consumers (``sample_compute_location`` + ``compute_at``;
with several consumers only loops above all of them are legal, which compute_at checks)."""

from __future__ import annotations

from dataclasses import dataclass

from ember.tir.schedule import BlockRV, Schedule, ScheduleError

from ..block_facts import block_facts


@dataclass(frozen=True)
class RandomComputeLocation:
    def _initialize_with_tune_context(self, context) -> None:
        pass

    def apply(self, sch: Schedule, block: BlockRV) -> list[Schedule]:
        facts = block_facts(sch, block)
        if facts.is_output or not facts.one_to_one or sch.get(block).annotations:
            return [sch]
        if not sch.get_consumers(block):
            return [sch]
        trial = sch.copy()
        try:
            loc = trial.sample_compute_location(block)
            trial.compute_at(block, loc, preserve_unit_loops=True)
        except ScheduleError:
            return [sch]
        return [trial]

    def clone(self) -> RandomComputeLocation:
        return self

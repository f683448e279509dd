"""``ParallelizeVectorizeUnroll``: marks the root block with how far to parallelise and
vectorise and a sampled explicit-unroll depth; ``RewriteParallelVectorizeUnroll`` (a
postprocessor) turns the marks into loop kinds once the loops are final."""

from __future__ import annotations

from dataclasses import dataclass

from ember.tir.schedule import BlockRV, Schedule

from .schedule_rule import num_cores

PARALLEL = "meta_schedule.parallel"
VECTORIZE = "meta_schedule.vectorize"
UNROLL_EXPLICIT = "meta_schedule.unroll_explicit"
UNROLL_IMPLICIT = "meta_schedule.unroll_implicit"


@dataclass
class ParallelizeVectorizeUnroll:
    max_jobs_per_core: int = 16
    max_vectorize_extent: int = 16
    unroll_max_steps: list | None = None
    unroll_explicit: bool = True
    _cores: int = 1

    def _initialize_with_tune_context(self, context) -> None:
        self._cores = num_cores(context.target)

    def apply(self, sch: Schedule, block: BlockRV) -> list[Schedule]:
        if sch.get(block).name_hint != "root":
            return [sch]
        if self.max_jobs_per_core > 0:
            sch.annotate(block, PARALLEL, self.max_jobs_per_core * self._cores)
        if self.max_vectorize_extent > 0:
            sch.annotate(block, VECTORIZE, self.max_vectorize_extent)
        if self.unroll_max_steps:
            n = len(self.unroll_max_steps)
            v = sch.sample_categorical(self.unroll_max_steps, [1.0 / n] * n)
            sch.annotate(block, UNROLL_EXPLICIT if self.unroll_explicit else UNROLL_IMPLICIT, v)
        return [sch]

    def clone(self) -> ParallelizeVectorizeUnroll:
        return ParallelizeVectorizeUnroll(self.max_jobs_per_core, self.max_vectorize_extent,
                                          self.unroll_max_steps, self.unroll_explicit, self._cores)

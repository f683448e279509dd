"""``MutateParallel``: changes how far the root block's loops may be fused for parallel
execution (the ``meta_schedule.parallel`` mark's value), by factors of two."""

from __future__ import annotations

from ember.tir.schedule import Instruction, Trace

from ..schedule_rule.parallel_vectorize_unroll import PARALLEL
from .mutator import MutatorBase


class MutateParallel(MutatorBase):
    def __init__(self, max_jobs_per_core: int = 16):
        super().__init__()
        self.max_jobs_per_core = max_jobs_per_core

    def apply(self, trace: Trace) -> Trace | None:
        kept = trace._kept(remove_postproc=True)
        marks = [i for i in kept if i.kind.method == "annotate" and i.attrs and i.attrs[0] == PARALLEL
                 and isinstance(i.attrs[1], int)]
        if not marks:
            return None
        old = self.rng.choice(marks)
        value = old.attrs[1]
        choices = [v for v in (value // 4, value // 2, value * 2) if v >= 1 and v != value]
        new = Instruction(old.kind, old.inputs, (PARALLEL, self.rng.choice(choices)), old.outputs)
        insts = [new if i is old else i for i in kept]
        decisions = {i: d for i, d in trace.decisions.items() if i in kept}
        return Trace(insts, decisions)

"""``MutateUnroll``: picks another candidate for a sampled unroll depth (the
``sample_categorical`` whose value annotates ``meta_schedule.unroll_*``)."""

from __future__ import annotations

from ember.tir.schedule import Trace

from ..schedule_rule.parallel_vectorize_unroll import UNROLL_EXPLICIT, UNROLL_IMPLICIT
from .mutator import MutatorBase


class MutateUnroll(MutatorBase):
    def apply(self, trace: Trace) -> Trace | None:
        feeding = {i.attrs[1] for i in trace.insts
                   if i.kind.method == "annotate" and i.attrs and i.attrs[0] in (UNROLL_EXPLICIT, UNROLL_IMPLICIT)}
        insts = [i for i in trace.insts if i.kind.method == "sample_categorical"
                 and i.outputs and i.outputs[0] in feeding and i in trace.decisions]
        if not insts:
            return None
        inst = self.rng.choice(insts)
        n = len(inst.attrs[0])
        others = [k for k in range(n) if k != int(trace.decisions[inst])]
        if not others:
            return None
        return trace.with_decision(inst, self.rng.choice(others), remove_postproc=True)

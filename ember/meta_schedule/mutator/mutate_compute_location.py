"""``MutateComputeLocation``: re-samples one ``sample_compute_location`` decision (the
replay picks a new legal location, since legal locations depend on the schedule)."""

from __future__ import annotations

from ember.tir.schedule import Trace

from .mutator import MutatorBase

RESAMPLE = "resample"  # a decision the search strategy's replay replaces by a fresh sample


class MutateComputeLocation(MutatorBase):
    def apply(self, trace: Trace) -> Trace | None:
        insts = [i for i in trace.insts if i.kind.method == "sample_compute_location" and i in trace.decisions]
        if not insts:
            return None
        return trace.with_decision(self.rng.choice(insts), RESAMPLE, remove_postproc=True)

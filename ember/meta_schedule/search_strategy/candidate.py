"""``MeasureCandidate`` and ``replay``: a candidate is a schedule (its trace) with the
argument shapes to run it with; ``replay`` re-applies a trace to a fresh schedule of the
workload, re-sampling decisions when asked, then runs the postprocessors."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ember.tir.schedule import Schedule, Trace

from ..mutator.mutate_compute_location import RESAMPLE

LOG = logging.getLogger("ember.meta_schedule")


@dataclass(frozen=True)
class MeasureCandidate:
    sch: Schedule
    args_info: list


def replay(mod, trace: Trace, seed: int, postprocs, resample: bool = False) -> Schedule | None:
    """A new schedule of ``mod`` with ``trace`` applied (postprocessing part dropped and
    redone), or None when a primitive or a postprocessor rejects it."""

    def provider(inst, inputs, attrs, decision):
        return None if resample or decision == RESAMPLE else decision

    sch = Schedule(mod, seed=seed, debug_mask=0)
    try:
        trace.apply_to_schedule(sch, remove_postproc=True, decision_provider=provider)
        sch.enter_postproc()
        for post in postprocs:
            if not post.apply(sch):
                return None
    except Exception as err:  # noqa: BLE001 - a rejected candidate, not a crash of the search
        LOG.debug("candidate rejected: %s: %s", type(err).__name__, str(err).splitlines()[0] if str(err) else "")
        return None
    return sch

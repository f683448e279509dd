"""The default schedule as a seed of the search: the trace of the first ``ember.dlight``
CPU rule that applies to the workload.  Measured with the first batch, it is the
baseline the summary's speed-up compares against, and because it competes like any
candidate, tuning never ends with something slower than the default (up to noise)."""

from __future__ import annotations

import logging

from ember.tir.schedule import Trace

from .utils import prim_func_of

LOG = logging.getLogger("ember.meta_schedule")


def default_schedule_trace(mod, target) -> Trace | None:
    if target.kind.name != "llvm":
        return None
    from ember import dlight

    _, func = prim_func_of(mod)
    for rule in dlight.cpu.default_rules():
        try:
            sch = rule.apply(func, target, False)
        except Exception as err:  # noqa: BLE001 - a rule's gap is not the tuner's failure
            LOG.debug("default seed: %s raised %s", type(rule).__name__, err)
            continue
        if sch is not None:
            return sch.trace
    return None


def finalize_for_build(mod):
    """The module as the default pipeline would compile it: marked scheduled, and allowed
    to contract multiply-adds into FMAs and to divide by a hoisted reciprocal (what dlight's
    rules ask for)."""
    from ember.dlight import FMA_CONTRACT, IS_SCHEDULED, RECIPROCAL
    from ember.ir import replace
    from ember.tir import PrimFunc

    funcs = {}
    for gv, f in mod.functions.items():
        if isinstance(f, PrimFunc):
            f = replace(f, attrs={**(f.attrs or {}), IS_SCHEDULED: True, FMA_CONTRACT: True,
                                  RECIPROCAL: True})
        funcs[gv] = f
    return mod.with_functions(funcs)

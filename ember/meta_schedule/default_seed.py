"""The default schedule as a seed of the search: the trace of the first ``ember.dlight``
CPU rule that applies to the workload.  Measured with the first batch, it is the
baseline the summary's speed-up compares against, and because it competes like any
candidate, tuning never ends with something slower than the default (up to noise).

The rule runs ``tunable``: where it has tile choices (the register tile of the conv rules)
they are sampled decisions whose default values are its own heuristic's, so the seed is
the default schedule, and its trace is also a design space of the search: the mutators
change those decisions per kernel and fresh samples draw new ones."""

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
            sch = rule.apply(func, target, True)
        except Exception as err:  # noqa: BLE001 - a rule's gap is not the tuner's failure
            LOG.debug("default seed: %s raised %s", type(rule).__name__, err)
            continue
        if sch is not None:
            return sch.trace
    return None


def add_seed_space(strategy, trace: Trace | None) -> bool:
    """Add the default schedule's trace to ``strategy``'s design spaces when it has sampled
    decisions; True when added.  It takes three draws of fresh samples in four: where a dlight
    rule applies, its structure is the one to explore (on ResNet-50's blocked convs
    MultiLevelTiling's samples ran 2-30x slower than the default, some took over 30 s to
    build, and with an even share they filled 12 of a task's 17 first trials)."""
    spaces = getattr(strategy, "design_spaces", None)
    if trace is None or spaces is None or not trace.decisions:
        return False
    spaces.extend([trace] * max(1, 3 * len(spaces)))
    strategy.seed_space = trace  # the first round's parent (EvolutionarySearch)
    return True


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

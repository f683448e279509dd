"""``ApplyDefaultSchedule(*rules)``: a module pass scheduling every unscheduled PrimFunc.

For each PrimFunc without the attribute ``tir.is_scheduled`` the rules are tried in
order; the first that returns a Schedule wins, and its function replaces the original,
marked ``tir.is_scheduled = True``.  The target is the one given, else ``Target.current()``
(``with target:``); without either the pass raises.  A rule that raises a ScheduleError
is logged and skipped (the next rule is tried), so a rule's gap never breaks a build.
"""

from __future__ import annotations

from ember.ir import IRModule
from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import ScheduleError
from ember.transform import PassContext
from ember.transform.pass_infra import ModulePass, PassInfo

from .analysis import has_root_block, looks_scheduled
from .base import FMA_CONTRACT, IS_SCHEDULED, LOG, RECIPROCAL, ScheduleRule


def _with_attr(func: PrimFunc, key: str, value) -> PrimFunc:
    from ember.ir import replace

    return replace(func, attrs={**(func.attrs or {}), key: value})


def schedule_func(func: PrimFunc, name: str, rules, target: Target) -> PrimFunc:
    """``func`` scheduled by the first rule that applies (marked scheduled), else unchanged."""
    if (func.attrs or {}).get(IS_SCHEDULED) or not has_root_block(func):
        return func
    if looks_scheduled(func):
        LOG.debug("%s: has parallel/vectorised/unrolled loops already; left as scheduled by hand", name)
        return func
    for rule in rules:
        try:
            sch = rule.apply(func, target, False)
        except ScheduleError as err:
            LOG.debug("%s: %s failed (%s); trying the next rule", name, type(rule).__name__,
                      str(err).splitlines()[0])
            continue
        except Exception as err:  # noqa: BLE001 - a rule's bug must not break the build
            LOG.warning("%s: %s raised %s: %s; trying the next rule", name, type(rule).__name__,
                        type(err).__name__, err)
            continue
        if sch is None:
            continue
        LOG.debug("%s: scheduled by %s", name, type(rule).__name__)
        new = _with_attr(next(iter(sch.mod.functions.values())), IS_SCHEDULED, True)
        if getattr(rule, "contract_fma", False):
            new = _with_attr(new, FMA_CONTRACT, True)
        if getattr(rule, "reciprocal_division", False):
            new = _with_attr(new, RECIPROCAL, True)
        return new
    LOG.debug("%s: no rule applies; left unscheduled", name)
    return func


class ApplyDefaultSchedule(ModulePass):
    """Schedule every PrimFunc lacking ``tir.is_scheduled`` with the first rule that applies."""

    def __init__(self, *rules: ScheduleRule, target: Target | str | None = None):
        for n, rule in enumerate(rules):
            if not isinstance(rule, ScheduleRule):
                raise TypeError(f"ApplyDefaultSchedule: rule {n} must be a dlight ScheduleRule, "
                                f"got {type(rule).__name__}")
        self.rules = tuple(rules)
        self.target = Target(target) if isinstance(target, str) else target
        super().__init__(self._run, PassInfo(0, "ApplyDefaultSchedule", (), False))

    def _run(self, mod: IRModule, ctx: PassContext) -> IRModule:
        target = self.target or Target.current()
        if target is None:
            raise ValueError("ApplyDefaultSchedule: no target; use `with Target(...):` or pass target=")
        functions, changed = {}, False
        for gv, func in mod.functions.items():
            if isinstance(func, PrimFunc):
                new = schedule_func(func, gv.name_hint, self.rules, target)
                changed |= new is not func
                func = new
            functions[gv] = func
        return mod.with_functions(functions) if changed else mod

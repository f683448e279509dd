"""The Relax passes of MetaSchedule (exported from ``ember.relax.transform``):

* ``MetaScheduleApplyDatabase``: every PrimFunc of the module that has a tuned record in
  the database (the one entered with ``with database:``, else the JSON files in
  ``work_dir``) is replaced by its best schedule, marked scheduled so the default
  schedules leave it alone; the others are left for ``ember.dlight``.
* ``MetaScheduleTuneIRMod``: tunes the module's kernels into ``work_dir``'s database and
  returns the module unchanged (apply the database afterwards).
"""

from __future__ import annotations

import logging

from ember.ir import IRModule, replace
from ember.target import Target
from ember.tir import PrimFunc
from ember.transform import module_pass

LOG = logging.getLogger("ember.meta_schedule")
GLOBAL_SYMBOL = "global_symbol"


def workload_of(func: PrimFunc) -> IRModule:
    """The tuning workload of a kernel: the PrimFunc alone as "main", without its symbol
    (so the same kernel under two names is one task), in the normal form ember.dlight's CPU
    rules schedule (unit broadcast indices as iterators), so that their trace, the default
    seed of the search, replays on it."""
    from ember.dlight.cpu.normalize import normalize_for_rules

    func = normalize_for_rules(func)
    attrs = {k: v for k, v in (func.attrs or {}).items() if k != GLOBAL_SYMBOL}
    return IRModule({"main": replace(func, attrs=attrs or None) if attrs != (func.attrs or {}) else func})


def apply_database(mod: IRModule, database, target, enable_warning: bool = False) -> IRModule:
    from ember.dlight import IS_SCHEDULED

    from .default_seed import finalize_for_build

    functions, changed = {}, False
    for gv, func in mod.functions.items():
        if isinstance(func, PrimFunc) and not (func.attrs or {}).get(IS_SCHEDULED):
            tuned = database.query_ir_module(workload_of(func), target, workload_name="main")
            if tuned is not None:
                new = next(iter(finalize_for_build(tuned).functions.values()))
                if (func.attrs or {}).get(GLOBAL_SYMBOL) is not None:
                    new = replace(new, attrs={GLOBAL_SYMBOL: func.attrs[GLOBAL_SYMBOL], **new.attrs})
                func, changed = new, True
            elif enable_warning:
                LOG.warning("MetaScheduleApplyDatabase: no tuning record for %s", gv.name_hint)
        functions[gv] = func
    return mod.with_functions(functions) if changed else mod


def MetaScheduleApplyDatabase(work_dir: str | None = None, enable_warning: bool = False):  # noqa: N802
    def run(mod: IRModule, ctx) -> IRModule:
        from .database import Database, JSONDatabase

        database = Database.current()
        if database is None:
            if work_dir is None:
                raise ValueError("MetaScheduleApplyDatabase: no database; enter one (`with database:`) "
                                 "or pass work_dir=")
            database = JSONDatabase(work_dir=work_dir)
        return apply_database(mod, database, Target.current() or Target("llvm"), enable_warning)

    return module_pass(run, opt_level=0, name="MetaScheduleApplyDatabase")


def MetaScheduleTuneIRMod(params: dict | None, work_dir: str, max_trials_global: int,  # noqa: N802
                          max_trials_per_task: int | None = None, op_names: list | None = None, **kwargs):
    def run(mod: IRModule, ctx) -> IRModule:
        from .relax_integration import tune_relax

        tune_relax(mod, params, Target.current() or Target("llvm"), work_dir, max_trials_global,
                   max_trials_per_task=max_trials_per_task, op_names=op_names, **kwargs)
        return mod

    return module_pass(run, opt_level=0, name="MetaScheduleTuneIRMod")

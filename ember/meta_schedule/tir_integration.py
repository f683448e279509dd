"""``tune_tir`` and ``compile_tir``: tune one TensorIR kernel, then get its best schedule."""

from __future__ import annotations

from .utils import normalize_mod, normalize_target


def tuning_workload(mod):
    """``mod`` (a PrimFunc or an IRModule) with its PrimFuncs in the normal form ember.dlight's
    CPU rules schedule (unit broadcast indices as iterators; see ``relax_passes.workload_of``),
    so that the default seed's trace replays on it.  ``compile_tir`` queries the same form."""
    from ember.dlight.cpu.normalize import normalize_for_rules
    from ember.tir import PrimFunc

    mod = normalize_mod(mod)
    funcs = {gv: normalize_for_rules(f) if isinstance(f, PrimFunc) else f for gv, f in mod.functions.items()}
    if all(funcs[gv] is f for gv, f in mod.functions.items()):
        return mod
    return mod.with_functions(funcs)


def tune_tir(mod, target, work_dir: str | None, max_trials_global: int, *, num_trials_per_iter: int = 64,
             builder="local", runner="local", database="json", cost_model="xgb", measure_callbacks=None,
             task_scheduler="gradient", space="post-order-apply", strategy="evolutionary",
             num_tuning_cores="physical", seed: int | None = None, module_equality: str = "structural",
             special_space=None, post_optimization: bool = False, task_name: str = "main", max_time=None,
             check_correctness: bool = True, default_seed: bool = True, progress: bool = True, confirm_top_k: int = 4):
    """Tune ``mod`` (a PrimFunc or an IRModule with one) for ``target``; returns the database.

    ``max_time`` ("10m", "90s" or seconds) stops the run early; ``check_correctness``
    compares every candidate with the unscheduled program on random inputs;
    ``default_seed`` measures ember.dlight's default schedule as the first candidate;
    ``confirm_top_k`` re-measures that many best records and the default at the end,
    interleaved, and records their median times (the pick survives a noisy machine)."""
    from .tune import tune_tasks
    from .tune_context import TuneContext

    mod = tuning_workload(mod)
    target = normalize_target(target)
    if special_space is not None:
        space = special_space
    ctx = TuneContext(mod, target=target, space_generator=space, search_strategy=strategy, task_name=task_name,
                      rand_state=-1 if seed is None else seed, num_threads=num_tuning_cores)
    return tune_tasks(tasks=[ctx], task_weights=[1.0], work_dir=work_dir, max_trials_global=max_trials_global,
                      num_trials_per_iter=num_trials_per_iter, builder=builder, runner=runner, database=database,
                      cost_model=cost_model, measure_callbacks=measure_callbacks, task_scheduler=task_scheduler,
                      module_equality=module_equality, max_time=max_time, check_correctness=check_correctness,
                      default_seed=default_seed, progress=progress, confirm_top_k=confirm_top_k)


def compile_tir(database, mod, target):
    """The best schedule of ``mod`` in ``database`` (a Schedule), or None when it has none.

    The schedule's function is marked as the tuner built it (scheduled, FMA contraction
    allowed), so ``ember.build(sch.mod, target)`` compiles what was measured."""
    from .default_seed import finalize_for_build

    mod = tuning_workload(mod)
    normalize_target(target)
    sch = database.query_schedule(mod, target, workload_name="main")
    if sch is None:
        return None
    final = finalize_for_build(sch.mod)
    sch.state.update(next(iter(f for f in final.functions.values())))
    return sch

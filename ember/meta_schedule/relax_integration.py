"""Tuning whole Relax models: ``extract_tasks`` (one task per distinct kernel after the
"zero" pipeline, weighted by how often it is called), ``tune_relax`` (all tasks under one
trial budget, shared by the gradient-based task scheduler) and ``compile_relax``
(apply the database, then ``relax.build``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ember.ir import IRModule, structural_equal
from ember.tir import PrimFunc

from .relax_passes import apply_database, workload_of
from .utils import normalize_target


@dataclass
class ExtractedTask:
    task_name: str
    mod: IRModule
    target: object
    dispatched: list = field(default_factory=list)
    weight: int = 1


def _lowered(mod: IRModule, params: dict | None, target) -> IRModule:
    """``mod`` through the graph pipeline ``relax.build`` gives ``target`` by default, so the
    tuned kernels are the ones the default build runs (on CPUs: convolutions channel-blocked)."""
    from ember import relax

    if params:
        from ember.relax.transform import BindParams

        mod = BindParams("main", params)(mod)
    return relax.get_default_pipeline(target)(mod)


def _call_counts(mod: IRModule) -> dict:
    """How many call sites name each GlobalVar (call_tir's first argument)."""
    from ember.relax import Function

    counts: dict = {}

    def walk(e):
        for child in (getattr(e, "args", None) or ()):
            if getattr(child, "name_hint", None) is not None and child in mod.get_global_vars():
                counts[child.name_hint] = counts.get(child.name_hint, 0) + 1
            walk(child)
        for name in ("body", "blocks", "fields", "true_branch", "false_branch"):
            child = getattr(e, name, None)
            for c in child if isinstance(child, tuple) else ([child] if child is not None else []):
                if not isinstance(c, str | int):
                    walk(c)
        for b in getattr(e, "bindings", ()):
            walk(b.value)

    for f in mod.functions.values():
        if isinstance(f, Function):
            walk(f.body)
    return counts


def extract_tasks(mod: IRModule, target, params: dict | None = None, module_equality: str = "structural",
                  op_names: list | None = None) -> list[ExtractedTask]:
    target = normalize_target(target)
    lowered = _lowered(mod, params, target)
    counts = _call_counts(lowered)
    tasks: list[ExtractedTask] = []
    for gv, func in lowered.functions.items():
        if not isinstance(func, PrimFunc):
            continue
        if op_names and not any(op in gv.name_hint for op in op_names):
            continue
        work = workload_of(func)
        for t in tasks:
            if structural_equal(t.mod, work):
                t.weight += counts.get(gv.name_hint, 1)
                t.dispatched.append(gv.name_hint)
                break
        else:
            tasks.append(ExtractedTask(gv.name_hint, work, target, [gv.name_hint], counts.get(gv.name_hint, 1)))
    return tasks


def tune_relax(mod: IRModule, params: dict | None, target, work_dir: str | None, max_trials_global: int, *,
               max_trials_per_task: int | None = None, op_names: list | None = None, num_trials_per_iter: int = 64,
               builder="local", runner="local", database="json", cost_model="xgb", measure_callbacks=None,
               task_scheduler="gradient", space="post-order-apply", strategy="evolutionary", seed: int | None = None,
               module_equality: str = "structural", max_time=None, check_correctness: bool = True,
               default_seed: bool = True, progress: bool = True, confirm_top_k: int = 4):
    """Tune every distinct kernel of ``mod`` for ``target``; returns the database."""
    from .tune import tune_tasks
    from .tune_context import TuneContext

    target = normalize_target(target)
    tasks = extract_tasks(mod, target, params, module_equality, op_names)
    if not tasks:
        raise ValueError("tune_relax: the module has no kernels to tune")
    contexts = [TuneContext(t.mod, target=target, space_generator=space, search_strategy=strategy,
                            task_name=t.task_name, rand_state=-1 if seed is None else seed + n)
                for n, t in enumerate(tasks)]
    return tune_tasks(tasks=contexts, task_weights=[t.weight for t in tasks], work_dir=work_dir,
                      max_trials_global=max_trials_global, max_trials_per_task=max_trials_per_task,
                      num_trials_per_iter=num_trials_per_iter, builder=builder, runner=runner, database=database,
                      cost_model=cost_model, measure_callbacks=measure_callbacks, task_scheduler=task_scheduler,
                      module_equality=module_equality, max_time=max_time, check_correctness=check_correctness,
                      default_seed=default_seed, progress=progress, confirm_top_k=confirm_top_k)


def compile_relax(database, mod: IRModule, target, params: dict | None = None, enable_warning: bool = False):
    """``relax.build`` of ``mod`` with every kernel the database has tuned replaced by its
    best schedule (the others get ember.dlight's default schedules)."""
    from ember import relax

    target = normalize_target(target)
    lowered = apply_database(_lowered(mod, params, target), database, target, enable_warning)
    return relax.build(lowered, target=target)

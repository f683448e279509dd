"""``tune_tasks``: the shared entry of ``tune_tir`` / ``tune_relax`` — resolves the parts
given by name ("local", "json", "xgb", "evolutionary", "gradient") and runs the task
scheduler, then writes the summary and curves."""

from __future__ import annotations

import logging
import os

from .utils import parse_time

LOG = logging.getLogger("ember.meta_schedule")


def _builder(builder):
    from .builder import create

    return create(builder) if isinstance(builder, str) else builder


def _runner(runner):
    from .runner import create

    return create(runner) if isinstance(runner, str) else runner


def _database(database, work_dir, module_equality):
    from .database import JSONDatabase, MemoryDatabase

    if database == "json":
        if work_dir is None:
            raise ValueError("database='json' needs a work_dir (or pass database=MemoryDatabase())")
        return JSONDatabase(work_dir=work_dir, module_equality=module_equality)
    if database == "memory":
        return MemoryDatabase()
    return database


def tune_tasks(*, tasks: list, task_weights: list, work_dir: str | None, max_trials_global: int,
               max_trials_per_task: int | None = None, num_trials_per_iter: int = 64, builder="local",
               runner="local", database="json", cost_model="xgb", measure_callbacks=None,
               task_scheduler="gradient", module_equality: str = "structural", max_time=None,
               check_correctness: bool = True, default_seed: bool = True, progress: bool = True,
               report: bool = True, confirm_top_k: int = 4):
    from .cost_model import create as create_cost_model
    from .task_scheduler import create as create_scheduler

    if max_trials_global < 1:
        raise ValueError(f"max_trials_global must be >= 1, got {max_trials_global}")
    if len(tasks) != len(task_weights):
        raise ValueError(f"tasks ({len(tasks)}) and task_weights ({len(task_weights)}) differ in length")
    seconds = parse_time(max_time)
    if work_dir is not None:
        os.makedirs(work_dir, exist_ok=True)
    database = _database(database, work_dir, module_equality)
    cost_model = create_cost_model(cost_model)
    scheduler = create_scheduler(task_scheduler)
    states = scheduler.tune(tasks, task_weights, max_trials_global, max_trials_per_task or max_trials_global,
                            num_trials_per_iter, _builder(builder), _runner(runner), measure_callbacks,
                            database, cost_model, max_time=seconds, work_dir=work_dir,
                            check_correctness=check_correctness, default_seed=default_seed, progress=progress,
                            confirm_top_k=confirm_top_k)
    if report:
        from .report import write_report

        write_report(states, work_dir)
    database.last_tuning = states
    return database

"""ember.meta_schedule: auto-tuning of TensorIR kernels (TVM's MetaSchedule).

The parts stay separate and replaceable, each a small interface with one or two
implementations: a space generator (``PostOrderApply`` running schedule rules on every
block) makes design spaces; a search strategy (``EvolutionarySearch``, ``ReplayTrace``,
``ReplayFunc``) samples and mutates their traces, ranked by a cost model
(``XGBModel``, ``RandomModel``); a builder and a runner (``LocalBuilder`` /
``LocalRunner`` in worker processes, ``RayBuilder`` / ``RayRunner`` on a Ray cluster)
compile, check and time candidates; a database (``JSONDatabase``, ``MemoryDatabase``)
keeps every result; a task scheduler (``GradientBased``) shares the trials among a
model's kernels.  Entry points: ``tune_tir`` / ``compile_tir`` (``tir_integration``),
``tune_relax`` / ``compile_relax`` / ``extract_tasks`` (``relax_integration``).
"""

from . import (builder, cost_model, database, mutator, postproc, runner, schedule_rule, search_strategy,
               space_generator, task_scheduler)
from .arg_info import ArgInfo, TensorInfo
from .builder import LocalBuilder
from .cost_model import RandomModel, XGBModel
from .database import Database, JSONDatabase, MemoryDatabase, TuningRecord, Workload
from .runner import EvaluatorConfig, LocalRunner
from .schedule_rule import derived_object
from .search_strategy import EvolutionarySearch, MeasureCandidate, ReplayFunc, ReplayTrace
from .space_generator import PostOrderApply, ScheduleFn
from .tir_integration import compile_tir, tune_tir
from .tune import tune_tasks
from .tune_context import TuneContext

from . import tir_integration  # noqa: E402  (after the names it uses)


def __getattr__(name):
    # relax and Ray pieces load on first use (they pull in the Relax compiler / ray)
    import importlib

    if name in ("relax_integration", "tune_relax", "compile_relax", "extract_tasks"):
        module = importlib.import_module("ember.meta_schedule.relax_integration")
        return module if name == "relax_integration" else getattr(module, name)
    if name in ("distributed", "RayBuilder", "RayRunner"):
        module = importlib.import_module("ember.meta_schedule.distributed")
        return module if name == "distributed" else getattr(module, name)
    raise AttributeError(f"module 'ember.meta_schedule' has no attribute {name!r}")


__all__ = ["ArgInfo", "TensorInfo", "LocalBuilder", "RandomModel", "XGBModel", "Database", "JSONDatabase",
           "MemoryDatabase", "TuningRecord", "Workload", "EvaluatorConfig", "LocalRunner", "EvolutionarySearch",
           "MeasureCandidate", "ReplayFunc", "ReplayTrace", "PostOrderApply", "ScheduleFn", "compile_tir",
           "tune_tir", "tune_tasks", "TuneContext", "derived_object", "builder", "cost_model", "database",
           "mutator", "postproc", "runner", "schedule_rule", "search_strategy", "space_generator",
           "task_scheduler", "tir_integration"]

"""``Workload``, ``TuningRecord`` and the ``Database`` interface with TVM's query methods.

A workload is one kernel (an IRModule with one PrimFunc) keyed by a stable hash of its
printed form; a tuning record is a trace measured on it.  A failed candidate is
recorded with ``run_secs = [FAILED_SECS]`` and its error message, so it is never picked
and never measured again.  Implementations store records (``JSONDatabase`` on disk,
``MemoryDatabase`` in memory); queries are written once here on top of ``get_top_k``.
A trace measured again (the tuner's final confirmation) counts with its latest record.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from ember.ir import IRModule, structural_equal
from ember.tir.schedule import Schedule, Trace

from ..arg_info import ArgInfo
from ..utils import mod_key, normalize_mod, normalize_target

FAILED_SECS = 1e10  # run time recorded for a candidate that failed to build, run or check


@dataclass(eq=False)
class Workload:
    mod: IRModule
    shash: str = ""

    def __post_init__(self):
        self.mod = normalize_mod(self.mod)
        if not self.shash:
            self.shash = mod_key(self.mod)

    def as_json(self) -> list:
        return [self.shash, self.mod.script()]

    @staticmethod
    def from_json(data) -> Workload:
        from ember.script import from_source

        shash, text = data
        return Workload(from_source(text), str(shash))


@dataclass(eq=False)
class TuningRecord:
    trace: Trace
    workload: Workload
    run_secs: list | None = None
    target: object = None
    args_info: list | None = None
    error_msg: str | None = None

    @property
    def is_valid(self) -> bool:
        return bool(self.run_secs) and all(math.isfinite(s) and s < FAILED_SECS for s in self.run_secs)

    @property
    def mean_secs(self) -> float:
        return sum(self.run_secs) / len(self.run_secs) if self.is_valid else FAILED_SECS

    def as_measure_candidate(self):
        from ..search_strategy.candidate import MeasureCandidate

        sch = Schedule(self.workload.mod)
        self.trace.apply_to_schedule(sch, remove_postproc=False)
        return MeasureCandidate(sch, self.args_info or ArgInfo.from_entry_func(self.workload.mod))

    def as_json(self) -> list:
        row = [self.trace.as_json(), self.run_secs, None if self.target is None else str(self.target),
               [a.as_json() for a in (self.args_info or [])]]
        if self.error_msg is not None:
            row.append(self.error_msg)
        return row

    @staticmethod
    def from_json(data, workload: Workload) -> TuningRecord:
        trace, run_secs, target, args = data[:4]
        return TuningRecord(Trace.from_json(trace), workload, run_secs,
                            None if target is None else normalize_target(target),
                            [ArgInfo.from_json(a) for a in args], data[4] if len(data) > 4 else None)


@dataclass(eq=False)
class Database:
    """Base class: subclasses implement the storage methods (``_store``, ``_records``)."""

    workloads: list = field(default_factory=list)
    module_equality: str = "structural"

    _current = []  # the databases entered with `with db:` (innermost last)

    # -- storage (overridden) -------------------------------------------------------------
    def _stored_workload(self, workload: Workload) -> None:
        pass

    def _stored_record(self, record: TuningRecord) -> None:
        pass

    # -- workloads --------------------------------------------------------------------------
    def _find(self, mod: IRModule) -> Workload | None:
        key = mod_key(mod)
        for w in self.workloads:
            if w.shash == key and structural_equal(w.mod, mod):
                return w
        return None

    def has_workload(self, mod) -> bool:
        return self._find(normalize_mod(mod)) is not None

    def commit_workload(self, mod) -> Workload:
        mod = normalize_mod(mod)
        found = self._find(mod)
        if found is None:
            found = Workload(mod)
            self.workloads.append(found)
            self._stored_workload(found)
        return found

    # -- records ------------------------------------------------------------------------------
    def commit_tuning_record(self, record: TuningRecord) -> None:
        if record.workload not in self.workloads:
            record.workload = self.commit_workload(record.workload.mod)
        self._records_of(record.workload).append(record)
        self._stored_record(record)

    def _records_of(self, workload: Workload) -> list:
        table = self.__dict__.setdefault("_by_workload", {})
        return table.setdefault(id(workload), [])

    def get_all_tuning_records(self) -> list[TuningRecord]:
        return [r for w in self.workloads for r in self._records_of(w)]

    def get_top_k(self, workload: Workload, top_k: int) -> list[TuningRecord]:
        if top_k < 0:
            raise ValueError(f"get_top_k: top_k must be >= 0, got {top_k}")
        latest: dict = {}  # a re-measured trace counts with its latest time
        for r in self._records_of(workload):
            latest[json.dumps(r.trace.as_json())] = r
        valid = [r for r in latest.values() if r.is_valid]
        return sorted(valid, key=lambda r: r.mean_secs)[:top_k]

    def __len__(self) -> int:
        return len(self.get_all_tuning_records())

    # -- queries ------------------------------------------------------------------------------
    def query_tuning_record(self, mod, target=None, workload_name: str = "main") -> TuningRecord | None:
        workload = self._find(normalize_mod(mod))
        if workload is None:
            return None
        best = self.get_top_k(workload, 1)
        return best[0] if best else None

    def query_schedule(self, mod, target=None, workload_name: str = "main") -> Schedule | None:
        record = self.query_tuning_record(mod, target, workload_name)
        if record is None:
            return None
        sch = Schedule(normalize_mod(mod))
        record.trace.apply_to_schedule(sch, remove_postproc=False)
        return sch

    def query_ir_module(self, mod, target=None, workload_name: str = "main") -> IRModule | None:
        sch = self.query_schedule(mod, target, workload_name)
        return None if sch is None else sch.mod

    def query(self, mod, target=None, *, workload_name: str = "main", kind: str = "schedule"):
        table = {"schedule": self.query_schedule, "record": self.query_tuning_record,
                 "ir_module": self.query_ir_module}
        if kind not in table:
            raise ValueError(f"query: kind must be one of {sorted(table)}, got {kind!r}")
        return table[kind](mod, target, workload_name)

    # -- context --------------------------------------------------------------------------
    def __enter__(self) -> Database:
        Database._current.append(self)
        return self

    def __exit__(self, *exc) -> None:
        Database._current.remove(self)

    @staticmethod
    def current() -> Database | None:
        return Database._current[-1] if Database._current else None

    @staticmethod
    def create(kind: str = "json", *args, **kwargs) -> Database:
        from .json_database import JSONDatabase
        from .memory_database import MemoryDatabase

        table = {"json": JSONDatabase, "memory": MemoryDatabase}
        if kind not in table:
            raise ValueError(f"Database.create: kind must be 'json' or 'memory', got {kind!r}")
        return table[kind](*args, **kwargs)

"""``JSONDatabase``: TVM's on-disk layout — two files of one JSON value per line.

``database_workload.json``: ``[shash, module TVMScript]`` per workload (TVM stores the
module as base64 JSON; ember stores its printed TVMScript, readable and parsed back).
``database_tuning_record.json``: ``[workload_index, [trace_json, run_secs, target,
args_info(, error_msg)]]`` per record.  Lines are appended and flushed as results come,
so an interrupted run loses nothing and a new run on the same ``work_dir`` resumes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from .database import Database, TuningRecord, Workload


@dataclass(eq=False, init=False)
class JSONDatabase(Database):
    path_workload: str = ""
    path_tuning_record: str = ""

    def __init__(self, path_workload: str | None = None, path_tuning_record: str | None = None,
                 work_dir: str | None = None, allow_missing: bool = True,
                 module_equality: str = "structural"):
        super().__init__([], module_equality)
        if work_dir is not None:
            os.makedirs(work_dir, exist_ok=True)
            path_workload = path_workload or os.path.join(work_dir, "database_workload.json")
            path_tuning_record = path_tuning_record or os.path.join(work_dir, "database_tuning_record.json")
        if not path_workload or not path_tuning_record:
            raise ValueError("JSONDatabase needs work_dir, or both path_workload and path_tuning_record")
        self.path_workload, self.path_tuning_record = path_workload, path_tuning_record
        for path in (path_workload, path_tuning_record):
            if not os.path.exists(path):
                if not allow_missing:
                    raise FileNotFoundError(f"JSONDatabase: {path} does not exist (allow_missing=False)")
                open(path, "a").close()
        self._loading = True
        for line in _lines(path_workload):
            self.workloads.append(Workload.from_json(line))
        for line in _lines(path_tuning_record):
            index, row = line
            if not 0 <= index < len(self.workloads):
                raise ValueError(f"JSONDatabase: {path_tuning_record} names workload {index}, but "
                                 f"{path_workload} holds {len(self.workloads)}")
            workload = self.workloads[index]
            self._records_of(workload).append(TuningRecord.from_json(row, workload))
        self._loading = False

    def _stored_workload(self, workload: Workload) -> None:
        _append(self.path_workload, workload.as_json())

    def _stored_record(self, record: TuningRecord) -> None:
        _append(self.path_tuning_record, [self.workloads.index(record.workload), record.as_json()])


def _lines(path: str):
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                # the last line of a run killed mid-write: everything before it is kept
                import logging

                logging.getLogger("ember.meta_schedule").warning("%s:%d: unreadable line skipped", path, n)


def _append(path: str, value) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(value) + "\n")
        f.flush()

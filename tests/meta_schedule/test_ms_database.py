"""JSONDatabase / MemoryDatabase: records, top-k, failures, queries, files, errors."""

import json

import pytest
from ms_kernels import matmul_64

import ember as tvm
from ember import meta_schedule as ms
from ember.meta_schedule.database import FAILED_SECS
from ember.tir.schedule import Schedule


def _trace(parallel: bool, split: bool = False):
    sch = Schedule(matmul_64)
    i, _, _ = sch.get_loops(sch.get_block("update"))
    if parallel:
        sch.parallel(i)
    if split:
        sch.split(i, factors=[None, 4])
    return sch.trace


def _fill(db):
    workload = db.commit_workload(matmul_64)
    args = ms.ArgInfo.from_prim_func(matmul_64)
    for secs, par in ((3e-3, False), (1e-3, True)):
        db.commit_tuning_record(ms.TuningRecord(_trace(par), workload, [secs], tvm.target.Target("llvm"), args))
    db.commit_tuning_record(ms.TuningRecord(_trace(False, True), workload, [FAILED_SECS], None, args, "WorkerCrashed"))
    return workload


def test_a_remeasured_trace_counts_with_its_latest_time():
    db = ms.MemoryDatabase()
    workload = _fill(db)
    db.commit_tuning_record(ms.TuningRecord(_trace(True), workload, [5e-3], None, None))
    assert [r.run_secs for r in db.get_top_k(workload, 5)] == [[3e-3], [5e-3]]


@pytest.mark.parametrize("kind", ["memory", "json"])
def test_top_k_skips_failures_and_query_applies_the_best(tmp_path, kind):
    db = ms.MemoryDatabase() if kind == "memory" else ms.JSONDatabase(work_dir=str(tmp_path))
    workload = _fill(db)
    assert len(db) == 3 and db.has_workload(matmul_64)
    top = db.get_top_k(workload, 5)
    assert [r.run_secs for r in top] == [[1e-3], [3e-3]]
    sch = db.query_schedule(matmul_64, "llvm")
    assert "T.parallel" in sch.mod.script()
    assert db.query(matmul_64, "llvm", kind="record") is top[0]
    assert db.query_ir_module(matmul_64) is not None
    with pytest.raises(ValueError, match="kind must be one of"):
        db.query(matmul_64, "llvm", kind="best")
    with pytest.raises(ValueError, match="top_k must be >= 0"):
        db.get_top_k(workload, -1)


def test_json_database_reloads_its_files(tmp_path):
    _fill(ms.JSONDatabase(work_dir=str(tmp_path)))
    rows = [json.loads(x) for x in (tmp_path / "database_tuning_record.json").read_text().splitlines()]
    assert [r[0] for r in rows] == [0, 0, 0] and rows[2][1][4] == "WorkerCrashed"
    db = ms.JSONDatabase(str(tmp_path / "database_workload.json"), str(tmp_path / "database_tuning_record.json"))
    assert len(db) == 3 and len(db.workloads) == 1
    assert db.get_top_k(db.workloads[0], 1)[0].run_secs == [1e-3]
    # committing the same workload again finds it instead of adding a copy
    assert db.commit_workload(matmul_64) is db.workloads[0]


def test_json_database_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="allow_missing=False"):
        ms.JSONDatabase(work_dir=str(tmp_path), allow_missing=False)
    with pytest.raises(ValueError, match="needs work_dir"):
        ms.JSONDatabase()
    (tmp_path / "w.json").write_text("")
    (tmp_path / "r.json").write_text(json.dumps([3, [[[], []], [1.0], None, []]]) + "\n")
    with pytest.raises(ValueError, match="names workload 3"):
        ms.JSONDatabase(str(tmp_path / "w.json"), str(tmp_path / "r.json"))
    with pytest.raises(ValueError, match="kind must be 'json' or 'memory'"):
        ms.Database.create("sqlite")


def test_database_context_is_current():
    db = ms.MemoryDatabase()
    assert ms.Database.current() is None
    with db:
        assert ms.Database.current() is db
    assert ms.Database.current() is None

"""A tuning run survives candidates that fail to build, crash the runner (segfault), hang,
or compute a wrong result: each is recorded as failed and a correct one is picked."""

import numpy as np
from ms_kernels import TARGET, fast_runner, matmul_64, run_matmul, small_search

import ember as tvm
from ember import meta_schedule as ms
from ember.ir import const, replace
from ember.target import Target
from ember.tir import BufferStore, IRMutator, SeqStmt, While


class _WrongResult(IRMutator):
    def visit_BufferStore(self, op):  # noqa: N802
        op = self.generic_visit(op)
        return replace(op, value=op.value + const(1.0, "float32")) if op.buffer.name == "C" else op


def _out_of_bounds_store(func):
    c = func.buffer_map[func.params[2]]
    bad = BufferStore(c, const(1.0, "float32"), [const(1 << 28, "int32"), const(1 << 28, "int32")])
    return replace(func, body=SeqStmt([bad, func.body]))


def _sabotage(mod, kind):
    gv = mod.get_global_vars()[0]
    func = mod[gv]
    if kind == "wrong":
        func = replace(func, body=_WrongResult().visit(func.body))
    elif kind == "crash":
        func = _out_of_bounds_store(func)
    elif kind == "hang":
        func = replace(func, body=While(const(True, "bool"), func.body))
    elif kind == "build":
        func = replace(func, body=BufferStore(func.buffer_map[func.params[2]], const(1.0, "float32"), [0]))
    return mod.with_functions({gv: func})


class SabotagingBuilder(ms.LocalBuilder):
    """Builds the 2nd..5th candidates of the first batch broken in four ways."""

    KINDS = ["build", "crash", "hang", "wrong"]

    def __init__(self):
        super().__init__(max_workers=1, timeout_sec=120)
        self.batches = 0

    def build(self, build_inputs):
        if self.batches == 0:
            build_inputs = [ms.builder.BuilderInput(_sabotage(b.mod, self.KINDS[n - 1]), b.target)
                            if 1 <= n <= len(self.KINDS) else b for n, b in enumerate(build_inputs)]
        self.batches += 1
        return super().build(build_inputs)


def test_faulty_candidates_are_recorded_as_failed(tmp_path):
    target = Target(TARGET)
    database = ms.tune_tir(matmul_64, target, str(tmp_path), max_trials_global=7, num_trials_per_iter=6,
                           builder=SabotagingBuilder(), runner=fast_runner(timeout_sec=10),
                           strategy=small_search(), cost_model="random", progress=False, seed=5)
    records = database.get_all_tuning_records()
    errors = [r.error_msg for r in records if not r.is_valid]
    assert len(records) >= 7  # 7 candidates, then the best re-measured
    assert len(errors) == 4, errors
    text = "\n".join(errors)
    for what in ("build failed", "WorkerCrashed", "TimeoutError", "wrong result"):
        assert what in text, (what, errors)
    sch = ms.tir_integration.compile_tir(database, matmul_64, target)
    got, want = run_matmul(tvm.build(sch.mod, target=target))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    # failures are kept on disk with their message, and never come back as the best record
    reloaded = ms.JSONDatabase(work_dir=str(tmp_path))
    assert sum(not r.is_valid for r in reloaded.get_all_tuning_records()) == 4
    best = reloaded.get_top_k(reloaded.workloads[0], 10)
    assert len(best) == 3 and all(r.is_valid for r in best)

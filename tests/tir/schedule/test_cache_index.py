"""cache_index: a block's index arithmetic precomputed into integer tables."""

import pytest
from sched_helpers import check

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError
from ember.tir.schedule import analysis as A


@T.prim_func
def upsample(A_: T.Buffer((1, 2, 8, 8), "float32"), B: T.Buffer((1, 2, 16, 16), "float32")):
    for n, c, i, j in T.grid(1, 2, 16, 16):
        with T.block("B"):
            vn, vc, vi, vj = T.axis.remap("SSSS", [n, c, i, j])
            B[vn, vc, vi, vj] = A_[vn, vc, vi // 4 + vj // 4, vj // 2] + A_[vn, vc, vi // 2, vj // 2]


@T.prim_func
def plain(A_: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A_[vi]


def test_cache_index_tables_and_numerics():
    sch = Schedule(upsample)
    blocks = sch.cache_index(sch.get_block("B"), "global")
    assert [sch.get(b).name_hint for b in blocks] == ["index_0", "index_1", "index_2"]
    func = sch.mod["main"]
    shapes = {b.name: [int(s.value) for s in b.shape] for b in func.body.block.alloc_buffers}
    assert shapes == {"index_var_0": [16, 16], "index_var_1": [16], "index_var_2": [16]}
    reads = [r.buffer.name for r in A.find_block(func, "B").block.reads]
    assert {"index_var_0", "index_var_1", "index_var_2"} <= set(reads)
    check(sch, upsample)


def test_cache_index_threshold_keeps_only_repeated_expressions():
    sch = Schedule(upsample)
    blocks = sch.cache_index(sch.get_block("B"), "global", 2)
    assert len(blocks) == 1  # vj // 2 appears twice
    check(sch, upsample)


def test_cache_index_without_index_arithmetic_is_refused():
    sch = Schedule(plain)
    with pytest.raises(ScheduleError, match="no index computation to cache"):
        sch.cache_index(sch.get_block("B"), "global")

"""reindex_cache_read / reindex_cache_write: caches laid out by an index map of the block's
iterators compute what the original does; accesses that are not single points are refused."""

import pytest
from sched_helpers import check

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError


@T.prim_func
def scale_then_shift(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8))
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def row_sum(A: T.Buffer((8, 4, 16), "float32"), C: T.Buffer((8, 4), "float32")):
    for i, j, k in T.grid(8, 4, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vj, vk]


def test_reindex_cache_read_layout_and_numerics():
    sch = Schedule(scale_then_shift)
    stage = sch.reindex_cache_read("C", 0, "shared", lambda i, j: (j, i // 2, i % 2))
    cache = sch.get(sch.get_block("C")).reads[0].buffer
    assert cache.name == "B_shared" and [int(s) for s in cache.shape] == [8, 8, 2]
    assert sch.get(stage).name_hint == "B_shared"
    check(sch, scale_then_shift)


def test_reindex_cache_write_of_a_reduction():
    sch = Schedule(row_sum)
    stage = sch.reindex_cache_write("C", 0, "local", lambda i, j, k: (j, i))
    block = sch.get(sch.get_block("C"))
    assert block.writes[0].buffer.name == "C_local"
    assert [iv.iter_type for iv in sch.get(stage).iter_vars] == [0, 0]  # the reduction iterator is dropped
    check(sch, row_sum)


def test_reindex_cache_read_refuses_a_map_dropping_an_iterator():
    sch = Schedule(scale_then_shift)
    with pytest.raises(ScheduleError, match=r"reindex_cache_read: iterator 'vi' of block 'C' is used by "
                                            r"the access but not by the index map"):
        sch.reindex_cache_read("C", 0, "shared", lambda i, j: (j * 2,))


@T.prim_func
def tile_reader(A: T.Buffer((16, 16), "float32"), B: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi * 4, vj * 4] + A[vi * 4 + 3, vj * 4 + 3]


def test_reindex_cache_read_refuses_a_region():
    sch = Schedule(tile_reader)
    with pytest.raises(ScheduleError, match="not at a single point"):
        sch.reindex_cache_read("B", 0, "shared", lambda i, j: (i, j))

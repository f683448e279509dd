"""merge: sibling loop nests become one nest with their bodies in sequence."""

import pytest
from sched_helpers import check

from ember.script import tir as T
from ember.tir import For, Schedule, ScheduleError


@T.prim_func
def two_outputs(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32"),
                D: T.Buffer((8, 4), "float32")):
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(8, 4):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def producer_consumer(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((8,))
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + T.float32(1)
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[7 - vi]


def test_merge_outer_loops():
    sch = Schedule(two_outputs)
    i_c = sch.get_loops(sch.get_block("C"))[0]
    i_d = sch.get_loops(sch.get_block("D"))[0]
    merged = sch.merge(i_c, i_d)
    loop = sch.get(merged)
    assert loop.loop_var.name == "i_m" and len(loop.body.seq) == 2
    assert [sch.get(lp).loop_var.name for lp in sch.get_loops(sch.get_block("D"))] == ["i_m", "j"]
    check(sch, two_outputs)


def test_merge_needs_equal_extents_at_every_level():
    sch = Schedule(two_outputs)
    j_c = sch.get_loops(sch.get_block("C"))[1]
    j_d = sch.get_loops(sch.get_block("D"))[1]
    with pytest.raises(ScheduleError, match="has extent 4 but loop 'j' at the same level has 8"):
        sch.merge(j_c, j_d)


def test_merge_refuses_dependent_nests():
    sch = Schedule(producer_consumer)
    loops = [sch.get_loops(sch.get_block(b))[0] for b in ("B", "C")]
    with pytest.raises(ScheduleError, match="writes a buffer another merged nest accesses"):
        sch.merge(*loops)
    assert isinstance(sch.mod["main"].body.block.body.seq[0], For)  # unchanged


def test_merge_needs_two_distinct_loops():
    sch = Schedule(two_outputs)
    i_c = sch.get_loops(sch.get_block("C"))[0]
    with pytest.raises(ScheduleError, match="the same loop twice"):
        sch.merge(i_c, i_c)

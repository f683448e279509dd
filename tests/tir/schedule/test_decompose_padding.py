"""decompose_padding: a padding block becomes a pad-value fill and an in-bound copy."""

import pytest
from sched_helpers import check

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError
from ember.tir.schedule import analysis as A


@T.prim_func
def pad_2d(x: T.Buffer((6, 6), "float32"), y: T.Buffer((10, 10), "float32")):
    for i, j in T.grid(10, 10):
        with T.block("pad"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = T.if_then_else(2 <= vi and vi < 8 and 2 <= vj and vj < 8,
                                       x[vi - 2, vj - 2], T.float32(0))


@T.prim_func
def no_padding(x: T.Buffer((6,), "float32"), y: T.Buffer((6,), "float32")):
    for i in range(6):
        with T.block("pad"):
            vi = T.axis.spatial(6, i)
            y[vi] = T.if_then_else(0 <= vi and vi < 6, x[vi], T.float32(0))


@T.prim_func
def not_padding(x: T.Buffer((6,), "float32"), y: T.Buffer((6,), "float32")):
    for i in range(6):
        with T.block("pad"):
            vi = T.axis.spatial(6, i)
            y[vi] = x[vi] + T.float32(1)


def test_decompose_at_outer_loop_shrinks_loops():
    sch = Schedule(pad_2d)
    pad = sch.get_block("pad")
    i, _ = sch.get_loops(pad)
    const_block = sch.decompose_padding(pad, i)
    assert sch.get(const_block).name_hint == "pad_pad_const"
    loops = [sch.get(lp) for lp in sch.get_loops(pad)]
    assert [int(lp.extent.value) for lp in loops] == [6, 6]
    assert A.is_true(A.find_block(sch.mod["main"], "pad").predicate)
    check(sch, pad_2d)


def test_decompose_at_inner_loop_keeps_outer_loop_with_predicate():
    sch = Schedule(pad_2d)
    pad = sch.get_block("pad")
    _, j = sch.get_loops(pad)
    sch.decompose_padding(pad, j)
    realize = A.find_block(sch.mod["main"], "pad")
    assert not A.is_true(realize.predicate)  # the i bound stays as a predicate
    check(sch, pad_2d)


def test_trivial_condition_is_refused():
    sch = Schedule(no_padding)
    pad = sch.get_block("pad")
    (i,) = sch.get_loops(pad)
    assert not sch.can_decompose_padding(pad, i)
    with pytest.raises(ScheduleError, match="always true"):
        sch.decompose_padding(pad, i)


def test_non_padding_block_is_refused():
    sch = Schedule(not_padding)
    pad = sch.get_block("pad")
    (i,) = sch.get_loops(pad)
    with pytest.raises(ScheduleError, match="is not a T.if_then_else"):
        sch.decompose_padding(pad, i)

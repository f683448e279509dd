"""loop_partition: a loop cut into consecutive loops over pieces of its range."""

import pytest
from sched_helpers import check

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError
from ember.tir.schedule import analysis as A


@T.prim_func
def add_one_2d(A_: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A_[vi, vj] + T.float32(1)


@T.prim_func
def shifted_sum(A_: T.Buffer((17,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A_[vi] + A_[vi + 1]


def test_partition_pieces_and_remainder():
    sch = Schedule(add_one_2d)
    i, _ = sch.get_loops(sch.get_block("B"))
    loops = sch.loop_partition(i, [3, 5])
    extents = [(int(sch.get(lp).min.value), int(sch.get(lp).extent.value)) for lp in loops]
    assert extents == [(0, 3), (3, 5), (8, 8)]
    names = A.block_names(sch.mod["main"])
    assert names[:3] == ["root", "B_i_common", "B_i0_partition"] and "B_i2" in names
    block = sch.get(sch.get_block("B_i1"))
    assert block.iter_vars[0].dom.min.value == 3 and block.iter_vars[0].dom.extent.value == 5
    assert block.writes[0].region[0].min.value == 3  # B[vi, vj] -> the box of the domains
    check(sch, add_one_2d)


def test_partition_inferred_factor_and_nested():
    sch = Schedule(add_one_2d)
    i, _ = sch.get_loops(sch.get_block("B"))
    sch.loop_partition(i, [None, 4])
    _, j = sch.get_loops(sch.get_block("B_i0"))
    sch.loop_partition(j, [2, None])
    assert "B_i0_j1" in A.block_names(sch.mod["main"])
    check(sch, add_one_2d)


def test_regions_kept_when_not_plain_iterators():
    sch = Schedule(shifted_sum)
    (i,) = sch.get_loops(sch.get_block("B"))
    sch.loop_partition(i, [None, 4])
    block = sch.get(sch.get_block("B_i1"))
    reads = block.reads[0].region[0]
    assert reads.extent.value == 2 or not hasattr(reads.extent, "value")  # A[vi:vi + 2] kept
    check(sch, shifted_sum)


@pytest.mark.parametrize("factors, message", [
    ([16, None], "leaves nothing of the extent 16"),
    ([0, None], "factor 0 is 0; factors must be positive"),
    ([None, None], "at most one factor can be None"),
])
def test_partition_refuses_bad_factors(factors, message):
    sch = Schedule(add_one_2d)
    i, _ = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match=message):
        sch.loop_partition(i, factors)


def test_partition_refuses_annotated_loop():
    sch = Schedule(add_one_2d)
    i, _ = sch.get_loops(sch.get_block("B"))
    sch.annotate(i, "pragma_x", 1)
    with pytest.raises(ScheduleError, match="has annotations or a thread binding"):
        sch.loop_partition(i, [4, None])

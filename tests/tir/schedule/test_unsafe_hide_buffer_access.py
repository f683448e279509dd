"""Schedule.unsafe_hide_buffer_access: drops chosen read/write regions of a block, traced."""

import pytest

from ember import tir
from ember.ir import structural_equal
from ember.script import tir as T
from ember.tir.schedule import ScheduleError


@T.prim_func
def gather(a: T.handle, ia: T.handle, b: T.handle):
    A = T.match_buffer(a, [16], "float32")
    IA = T.match_buffer(ia, [4], "int32")
    B = T.match_buffer(b, [4], "float32")
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            T.reads(A[IA[vi]], IA[vi])
            T.writes(B[vi])
            B[vi] = A[IA[vi]]


def test_hide_a_read_region_and_replay():
    sch = tir.Schedule(gather)
    block = sch.get_block("B")
    sch.unsafe_hide_buffer_access(block, "read", [1])
    reads = sch.get(block).reads
    assert len(reads) == 1 and reads[0].buffer.name == "A"
    replayed = tir.Schedule(gather)
    sch.trace.apply_to_schedule(replayed, remove_postproc=False)
    assert structural_equal(replayed.mod, sch.mod)


def test_bad_kind_or_index_is_refused():
    sch = tir.Schedule(gather)
    block = sch.get_block("B")
    with pytest.raises(ScheduleError, match="'read' or 'write'"):
        sch.unsafe_hide_buffer_access(block, "opaque", [0])
    with pytest.raises(ScheduleError, match="index 2 is out of range"):
        sch.unsafe_hide_buffer_access(block, "read", [2])

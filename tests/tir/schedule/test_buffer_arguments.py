"""Buffer arguments of schedule primitives: ("read" | "write", index) checks and tracing."""

import pytest
from sched_helpers import check_trace_roundtrip
from test_read_write_at import matmul_16

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError


def test_set_axis_separator_index_out_of_range_is_an_assertion_error_too():
    from ember.tir.schedule.errors import BufferIndexError

    sch = Schedule(matmul_16)
    with pytest.raises(AssertionError, match="has no write buffer 1") as info:
        sch.set_axis_separator(sch.get_block("C"), ("write", 1), [1])
    assert isinstance(info.value, BufferIndexError) and isinstance(info.value, ScheduleError)


def test_transform_layout_of_a_buffer_object_traces_kind_and_index():
    sch = Schedule(matmul_16)
    block = sch.get_block("C")
    buf = sch.get(block).writes[0].buffer
    sch.transform_layout(block, buf, lambda i, j: [j, i])
    assert 'buffer=["write", 0]' in str(sch.trace)
    check_trace_roundtrip(sch, matmul_16)


@T.prim_func
def matched_views(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_row = T.match_buffer(B[vi, 0:8], (8,))
            B_row[vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


def test_set_axis_separator_reaches_match_buffer_views():
    sch = Schedule(matched_views)
    sch.set_axis_separator(sch.get_block("B"), ("write", 0), [1])
    view = sch.get(sch.get_block("B")).match_buffers[0].buffer
    assert tuple(view.axis_separators) == (0,)  # the row view keeps B's last axis


def test_transform_layout_keeps_a_stored_view_out_of_the_reads():
    sch = Schedule(matched_views)
    sch.transform_layout(sch.get_block("B"), ("write", 0), lambda i, j: [i, j])
    block = sch.get(sch.get_block("B"))
    assert [r.buffer.name for r in block.reads] == ["A"]  # B_row is only stored to
    assert [w.buffer.name for w in block.writes] == ["B"]

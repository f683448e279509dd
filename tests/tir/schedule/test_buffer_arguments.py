"""Buffer arguments of schedule primitives: ("read" | "write", index) checks and tracing."""

import pytest
from sched_helpers import check_trace_roundtrip
from test_read_write_at import matmul_16

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

"""reorder_block_iter_var and unsafe_set_dtype: edits of one block."""

import pytest
from sched_helpers import check
from sched_scripts import scale_then_shift_16

from ember.ir.expr import Cast
from ember.script import tir as T
from ember.tir import Schedule, ScheduleError
from ember.tir.buffer import BufferLoad
from ember.tir.functor import collect


@T.prim_func
def row_sum(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def test_reorder_block_iter_var_permutes_iterators_and_bindings():
    sch = Schedule(row_sum)
    block = sch.get_block("B")
    sch.reorder_block_iter_var(block, [1, 0])
    realize_block = sch.get(block)
    assert [iv.var.name for iv in realize_block.iter_vars] == ["vk", "vi"]
    check(sch, row_sum)


@pytest.mark.parametrize("order", [[0], [0, 0], [0, 2], [-1, 1]])
def test_reorder_block_iter_var_needs_a_permutation(order):
    sch = Schedule(row_sum)
    with pytest.raises(ScheduleError, match="must be a permutation of 0..1"):
        sch.reorder_block_iter_var(sch.get_block("B"), order)


def test_unsafe_set_dtype_casts_stores_and_loads():
    sch = Schedule(scale_then_shift_16)
    sch.unsafe_set_dtype(sch.get_block("B"), 0, "float64")
    func = sch.mod["main"]
    b_buf = func.body.block.alloc_buffers[0]
    assert b_buf.dtype == "float64"
    store = sch.get(sch.get_block("B")).body
    assert isinstance(store.value, Cast) and store.value.dtype == "float64"
    loads = collect(sch.get(sch.get_block("C")).body, lambda x: isinstance(x, Cast))
    assert loads and isinstance(loads[0].value, BufferLoad) and loads[0].dtype == "float32"
    check(sch, scale_then_shift_16)  # float64 holds float32 values exactly: same results


def test_unsafe_set_dtype_refuses_parameters_and_bad_index():
    sch = Schedule(scale_then_shift_16)
    with pytest.raises(ScheduleError, match="is a function parameter"):
        sch.unsafe_set_dtype(sch.get_block("C"), 0, "float16")
    with pytest.raises(ScheduleError, match="out of range"):
        sch.unsafe_set_dtype(sch.get_block("B"), 1, "float16")
    with pytest.raises(ScheduleError, match="unknown data type"):
        sch.unsafe_set_dtype(sch.get_block("B"), 0, "float13")


@T.prim_func
def blur_1d(A: T.Buffer((18,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] + A[vi + 1] + A[vi + 2]


def test_annotate_buffer_access_declares_the_region():
    sch = Schedule(blur_1d)
    block = sch.get_block("B")
    sch.annotate_buffer_access(block, 0, "read", lambda vi: ((vi, vi + 4),))
    new = sch.get(block)
    assert int(new.reads[0].region[0].extent) == 4
    assert new.annotations["explicit_read_region"] == [0]
    sch.annotate_buffer_access(block, 0, "read", lambda vi: [(vi, vi + 3)])  # again: replaced, one mark
    assert int(sch.get(block).reads[0].region[0].extent) == 3
    assert sch.get(block).annotations["explicit_read_region"] == [0]
    check(sch, blur_1d)


def test_annotate_buffer_access_errors():
    sch = Schedule(blur_1d)
    block = sch.get_block("B")
    with pytest.raises(ScheduleError, match="buf_type must be 'read' or 'write'"):
        sch.annotate_buffer_access(block, 0, "both", lambda vi: [(vi, vi + 1)])
    with pytest.raises(ScheduleError, match="has no write buffer 1"):
        sch.annotate_buffer_access(block, 1, "write", lambda vi: [(vi, vi + 1)])

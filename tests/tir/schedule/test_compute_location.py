"""compute_inline, reverse_compute_inline, compute_at, reverse_compute_at."""

import pytest
from sched_helpers import check
from sched_scripts import times_two_1d, times_two_2d
from sched_workloads import conv2d, elementwise, matmul_relu

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError


@T.prim_func
def two_stage(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    times_two_2d(A, B, 16, 16)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def two_stage_inlined(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)


@T.prim_func
def two_stage_reverse_inlined(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)


@T.prim_func
def two_stage_compute_at(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i in range(16):
        for ax0 in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(16, ax0)
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for j in range(16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def two_stage_reverse_compute_at(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i in range(16):
        for j in range(16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for ax0 in range(16):
            with T.block("C"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(16, ax0)
                C[vi, vj] = B[vi, vj] + T.float32(1)


def test_compute_inline():
    sch = Schedule(two_stage)
    sch.compute_inline(sch.get_block("B"))
    check(sch, two_stage, two_stage_inlined)


def test_reverse_compute_inline():
    sch = Schedule(two_stage)
    sch.reverse_compute_inline(sch.get_block("C"))
    check(sch, two_stage, two_stage_reverse_inlined)


def test_compute_inline_padding_into_conv():
    sch = Schedule(conv2d())
    sch.compute_inline(sch.get_block("Apad"))
    check(sch, conv2d())


def test_compute_inline_reduction_error():
    sch = Schedule(matmul_relu())
    with pytest.raises(ScheduleError, match="is a reduction block") as info:
        sch.compute_inline(sch.get_block("C"))
    assert 'T.block("C"):  # <--- error here' in str(info.value)


def test_compute_inline_output_error():
    sch = Schedule(two_stage)
    with pytest.raises(ScheduleError, match="output buffer 'C'"):
        sch.compute_inline(sch.get_block("C"))


def test_reverse_compute_inline_into_reduction_error():
    sch = Schedule(matmul_relu())
    with pytest.raises(ScheduleError, match="non-reduction block"):
        sch.reverse_compute_inline(sch.get_block("D"))


@T.prim_func
def slice_consumer(A: T.Buffer((16,), "float32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((16,), "float32")
    times_two_1d(A, B, 16)
    for j in range(8):
        with T.block("C"):
            vj = T.axis.spatial(8, j)
            C[vj] = B[vj] + T.float32(1)


def test_reverse_compute_inline_of_a_slice_guards_the_producer():
    """The producer runs over 16 elements, the output has 8: as in TVM, the inlined
    producer gets a predicate so that it writes only those 8."""
    sch = Schedule(slice_consumer)
    sch.reverse_compute_inline(sch.get_block("C"))
    assert "T.where(i < 8)" in sch.mod["main"].script()
    check(sch, slice_consumer)


def test_compute_at():
    sch = Schedule(two_stage)
    i, _ = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B"), i)
    check(sch, two_stage, two_stage_compute_at)


def test_reverse_compute_at():
    sch = Schedule(two_stage)
    i, _ = sch.get_loops(sch.get_block("B"))
    sch.reverse_compute_at(sch.get_block("C"), i)
    check(sch, two_stage, two_stage_reverse_compute_at)


def test_compute_at_tiled_matmul_relu():
    sch = Schedule(matmul_relu())
    i, j = sch.get_loops(sch.get_block("D"))
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i0, j0, i1, j1)
    sch.compute_at(sch.get_block("C"), j0)
    loops = sch.get_loops(sch.get_block("C"))
    assert [sch.get(x).extent.value for x in loops] == [4, 2, 4, 8, 16]
    check(sch, matmul_relu())


def test_compute_at_non_divisible_adds_predicate():
    sch = Schedule(two_stage)
    i, _ = sch.get_loops(sch.get_block("C"))
    i0, _ = sch.split(i, [None, 3])
    sch.compute_at(sch.get_block("B"), i0)
    assert "T.where(i_0 * 3 + ax0 < 16)" in sch.mod.script()
    check(sch, two_stage)


def test_compute_at_conv_sliding_window():
    sch = Schedule(conv2d())
    loops = sch.get_loops(sch.get_block("O"))
    sch.compute_at(sch.get_block("Apad"), loops[2])
    extents = [sch.get(x).extent.value for x in sch.get_loops(sch.get_block("Apad"))]
    assert extents == [1, 2, 6, 2, 3, 8]
    check(sch, conv2d())


def test_compute_at_preserve_unit_loops_and_index():
    sch = Schedule(conv2d())
    loops = sch.get_loops(sch.get_block("O"))
    sch.compute_at(sch.get_block("Apad"), loops[3], preserve_unit_loops=True, index=0)
    assert len(sch.get_loops(sch.get_block("Apad"))) == 8
    check(sch, conv2d())


def test_compute_at_not_a_producer_error():
    sch = Schedule(two_stage)
    i, _ = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="already under loop"):
        sch.compute_at(sch.get_block("B"), i)
    sch2 = Schedule(two_stage)
    i, _ = sch2.get_loops(sch2.get_block("B"))
    with pytest.raises(ScheduleError, match="no block under loop 'i' produces"):
        sch2.reverse_compute_at(sch2.get_block("B"), sch2.get_loops(sch2.get_block("C"))[0])


def test_compute_at_consumer_is_not_under_loop_error():
    sch = Schedule(two_stage)
    i, _ = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="is not a producer of any block under loop"):
        sch.compute_at(sch.get_block("C"), i)
    with pytest.raises(ScheduleError, match="it is an output block"):  # TVM's term for it
        sch.compute_at(sch.get_block("C"), i)
    with pytest.raises(ScheduleError, match="an ancestor of block 'B'"):
        sch.compute_at(sch.get_block("B"), i)


def test_compute_at_bad_index_error():
    sch = Schedule(two_stage)
    i, _ = sch.get_loops(sch.get_block("C"))
    with pytest.raises(ScheduleError, match="index 5 is not a legal insertion point"):
        sch.compute_at(sch.get_block("B"), i, index=5)


def test_elementwise_chain_compute_at_then_inline():
    sch = Schedule(elementwise())
    i, j = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B"), j)
    sch.compute_inline(sch.get_block("B"))
    check(sch, elementwise())


def test_compute_inline_of_one_of_several_writers_error():
    sch = Schedule(matmul_relu())
    block = sch.get_block("C")
    sch.decompose_reduction(block, sch.get_loops(block)[0])
    with pytest.raises(ScheduleError, match=r"also written by block\(s\) \['C_update'\]"):
        sch.compute_inline(sch.get_block("C_init"))


@T.prim_func
def consumer_first(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"),
                   C: T.Buffer((16,), "float32")):
    X = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("read_x"):
            vi = T.axis.remap("S", [i])
            C[vi] = X[vi] + A[vi]
    for i in range(16):
        with T.block("write_x"):
            vi = T.axis.remap("S", [i])
            X[vi] = B[vi]


def test_compute_at_order_errors():
    sch = Schedule(consumer_first)
    (loop,) = sch.get_loops(sch.get_block("read_x"))
    with pytest.raises(ScheduleError, match="comes after loop 'i'"):
        sch.compute_at(sch.get_block("write_x"), loop)
    (loop,) = sch.get_loops(sch.get_block("write_x"))
    with pytest.raises(ScheduleError, match="comes before loop 'i'"):
        sch.reverse_compute_at(sch.get_block("read_x"), loop)


def test_compute_at_of_one_of_several_writers_error():
    sch = Schedule(matmul_relu())
    block = sch.get_block("C")
    sch.decompose_reduction(block, sch.get_loops(block)[0])
    loop = sch.get_loops(sch.get_block("D"))[0]
    with pytest.raises(ScheduleError, match=r"is not the only writer of 'C' \(also written by \['C_update'\]\)"):
        sch.compute_at(sch.get_block("C_init"), loop)


@T.prim_func
def gather(A: T.Buffer((16,), "float32"), Idx: T.Buffer((8,), "int32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
    for i in range(8):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[Idx[vi]]


def test_compute_at_data_dependent_index():
    sch = Schedule(gather)
    (loop,) = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B"), loop)
    assert "T.where(0 <= Idx[i] and Idx[i] < 16)" in sch.mod.script()  # TVM writes >= as <=
    import numpy as np

    from sched_helpers import _run

    a = np.arange(16, dtype="float32")
    idx = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype="int32")
    c = np.zeros(8, dtype="float32")
    _run(sch.mod["main"], a, idx, c)
    np.testing.assert_allclose(c, a[idx] + 1)


def test_get_sref():
    sch = Schedule(two_stage)
    block = sch.get_block("C")
    sref = sch.get_sref(block)
    assert sref.stmt.name_hint == "C"
    assert sref.parent.stmt.loop_var.name == "j"
    assert sref.parent.parent.parent.stmt.name_hint == "root"


@T.prim_func
def two_outputs(A: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((8,))
    C = T.alloc_buffer((8,))
    for i in range(8):
        with T.block("BC"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
            C[vi] = A[vi] * T.float32(2)
    for i in range(8):
        with T.block("D"):
            vi = T.axis.remap("S", [i])
            D[vi] = B[vi] + C[vi]


def test_compute_inline_several_writes_error():
    sch = Schedule(two_outputs)
    with pytest.raises(ScheduleError, match="block 'BC' writes 2 buffers; it must write exactly one"):
        sch.compute_inline(sch.get_block("BC"))

"""rolling_buffer: an intermediate buffer shrunk to a window that rolls along one axis."""

import pytest
from sched_helpers import check

from ember.script import tir as T
from ember.tir import IterVar, Schedule, ScheduleError
from ember.tir.schedule import analysis


@T.prim_func
def box_sum_1d(A: T.Buffer((4, 12), "int32"), C: T.Buffer((4, 8), "int32")):
    B = T.alloc_buffer((4, 10), "int32")
    for c, i, k in T.grid(4, 10, 3):
        with T.block("B"):
            cc, vi, vk = T.axis.remap("SSR", [c, i, k])
            with T.init():
                B[cc, vi] = 0
            B[cc, vi] = B[cc, vi] + A[cc, vi + vk]
    for c, i, k in T.grid(4, 8, 3):
        with T.block("C"):
            cc, vi, vk = T.axis.remap("SSR", [c, i, k])
            with T.init():
                C[cc, vi] = 0
            C[cc, vi] = C[cc, vi] + B[cc, vi + vk]


def test_rolling_window_numerics():
    sch = Schedule(box_sum_1d)
    c, i, _ = sch.get_loops(sch.get_block("C"))
    io, _ = sch.split(i, [2, 4])
    sch.compute_at(sch.get_block("B"), io)
    sch.rolling_buffer(sch.get_block("B"), 0)
    func = sch.mod["main"]
    buf = func.body.block.alloc_buffers[0]
    assert [int(s.value) for s in buf.shape] == [4, 6]
    block_b = sch.get(sch.get_block("B"))
    assert block_b.iter_vars[1].iter_type == IterVar.Opaque
    assert "% 6" in func.script()
    check(sch, box_sum_1d)


def test_rolling_refuses_producer_not_under_common_loop():
    sch = Schedule(box_sum_1d)
    with pytest.raises(ScheduleError, match="meet at no common loop"):
        sch.rolling_buffer(sch.get_block("B"), 0)


def test_rolling_refuses_output_block():
    sch = Schedule(box_sum_1d)
    with pytest.raises(ScheduleError, match="writes the output buffer 'C'"):
        sch.rolling_buffer(sch.get_block("C"), 0)


def test_rolling_refuses_windows_without_overlap():
    # a consumer reading one element per iteration: consecutive windows do not overlap
    sch = Schedule(pointwise)
    _, i = sch.get_loops(sch.get_block("C"))
    io, _ = sch.split(i, [2, 4])
    sch.compute_at(sch.get_block("B"), io)
    with pytest.raises(ScheduleError, match="follows a rolling pattern"):
        sch.rolling_buffer(sch.get_block("B"), 0)


@T.prim_func
def pointwise(A: T.Buffer((4, 8), "int32"), C: T.Buffer((4, 8), "int32")):
    B = T.alloc_buffer((4, 8), "int32")
    for c, i in T.grid(4, 8):
        with T.block("B"):
            cc, vi = T.axis.remap("SS", [c, i])
            B[cc, vi] = A[cc, vi] + 1
    for c, i in T.grid(4, 8):
        with T.block("C"):
            cc, vi = T.axis.remap("SS", [c, i])
            C[cc, vi] = B[cc, vi] * 2


@T.prim_func
def box_sum_2d(A: T.Buffer((1, 12), "int32"), C: T.Buffer((1, 8), "int32")):
    B = T.alloc_buffer((1, 10), "int32")
    for c, i, k in T.grid(1, 10, 3):
        with T.block("B"):
            cc, vi, vk = T.axis.remap("SSR", [c, i, k])
            with T.init():
                B[cc, vi] = 0
            B[cc, vi] = B[cc, vi] + A[cc, vi + vk]
    for c, i, k in T.grid(1, 8, 3):
        with T.block("C"):
            cc, vi, vk = T.axis.remap("SSR", [c, i, k])
            with T.init():
                C[cc, vi] = 0
            C[cc, vi] = C[cc, vi] + B[cc, vi + vk]


def test_compute_at_folds_one_iteration_loops_in_bindings():
    sch = Schedule(box_sum_2d)
    c, i, _ = sch.get_loops(sch.get_block("C"))
    io, _ = sch.split(i, [2, 4])
    sch.compute_at(sch.get_block("B"), io)
    block = analysis.find_block(sch.mod["main"], "B")
    assert block.iter_values[0].value == 0  # the loop c runs once: its variable is 0
    sch.rolling_buffer(sch.get_block("B"), 0)
    check(sch, box_sum_2d)


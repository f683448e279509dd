"""decompose_reduction and rfactor."""

import pytest
from sched_helpers import check
from sched_scripts import matmul_16
from sched_workloads import matmul, matmul_relu, row_sum

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError


@T.prim_func
def matmul_decomposed(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                      C: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j_init in range(16):
            with T.block("C_init"):
                vi, vj = T.axis.remap("SS", [i, j_init])
                C[vi, vj] = T.float32(0)
        for j, k in T.grid(16, 16):
            with T.block("C_update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def row_sum_8(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 32):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def row_sum_rfactor(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8,), "float32")):
    B_rf = T.alloc_buffer((4, 8))
    for i, k_0, k_1 in T.grid(8, 8, 4):
        with T.block("B_rf"):
            vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
            with T.init():
                B_rf[vk_1, vi] = T.float32(0)
            B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 4 + vk_1]
    for i, k_1 in T.grid(8, 4):
        with T.block("B"):
            vk_1, vi = T.axis.remap("RS", [k_1, i])  # TVM: the rfactor iterator first
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + B_rf[vk_1, vi]


def test_decompose_reduction():
    sch = Schedule(matmul_16)
    block = sch.get_block("C")
    _, j, _ = sch.get_loops(block)
    init = sch.decompose_reduction(block, j)
    assert sch.get(init).name_hint == "C_init"
    assert sch.get(block).name_hint == "C_update"  # the handle follows the renamed block
    check(sch, matmul_16, matmul_decomposed)


def test_decompose_reduction_at_outermost_tiled():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    k0, k1 = sch.split(k, [None, 4])
    sch.reorder(k0, i)
    sch.decompose_reduction(block, k0)
    check(sch, matmul())


def test_decompose_reduction_errors():
    sch = Schedule(matmul_16)
    block = sch.get_block("C")
    i, _, _ = sch.get_loops(block)
    sch.decompose_reduction(block, i)
    init = sch.get_block("C_init")
    with pytest.raises(ScheduleError, match="not a reduction block"):
        sch.decompose_reduction(init, sch.get_loops(init)[0])
    sch2 = Schedule(matmul_relu())
    d_loop = sch2.get_loops(sch2.get_block("D"))[0]
    with pytest.raises(ScheduleError, match="is not a loop above block 'C'"):
        sch2.decompose_reduction(sch2.get_block("C"), d_loop)


def test_rfactor_inner():
    sch = Schedule(row_sum_8)
    _, k = sch.get_loops(sch.get_block("B"))
    _, k1 = sch.split(k, [None, 4])
    rf = sch.rfactor(k1, 0)
    assert sch.get(rf).name_hint == "B_rf"
    check(sch, row_sum_8, row_sum_rfactor)


@pytest.mark.parametrize("factor, which, axis", [(4, 0, 1), (5, 0, -1), (5, 1, 0)])
def test_rfactor_variants(factor, which, axis):
    sch = Schedule(row_sum())
    _, k = sch.get_loops(sch.get_block("B"))
    parts = sch.split(k, [None, factor])
    sch.rfactor(parts[which], axis)
    check(sch, row_sum())


def test_rfactor_matmul():
    sch = Schedule(matmul())
    _, _, k = sch.get_loops(sch.get_block("C"))
    sch.rfactor(k, 2)
    check(sch, matmul())


def test_rfactor_errors():
    sch = Schedule(row_sum_8)
    i, k = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="bound to reduction iterators only"):
        sch.rfactor(i, 0)
    with pytest.raises(ScheduleError, match=r"factor_axis must be in \[-2, 1\], got 3"):
        sch.rfactor(k, 3)


def test_decompose_below_reduction_loop_error():
    sch = Schedule(matmul_16)
    block = sch.get_block("C")
    _, j, k = sch.get_loops(block)
    sch.reorder(k, j)
    with pytest.raises(ScheduleError, match="feeds a reduction iterator"):
        sch.decompose_reduction(block, j)


def test_rfactor_fused_spatial_reduce_loop_error():
    sch = Schedule(row_sum_8)
    i, k = sch.get_loops(sch.get_block("B"))
    _, k1 = sch.split(k, [None, 1])
    with pytest.raises(ScheduleError, match="feeds both spatial and reduction"):
        sch.fuse(i, sch.get_loops(sch.get_block("B"))[1])
        sch.rfactor(k1, 0)


def test_rfactor_loop_with_empty_iterations_skips_them():
    # k11 == 1 never runs a reduction step: its partial result is never initialised, so
    # the write-back block must not read it (it gets the predicate instead of a refusal)
    sch = Schedule(row_sum(4, 12))
    _, k = sch.get_loops(sch.get_block("B"))
    _, k1 = sch.split(k, [None, 1])
    _, k11 = sch.split(k1, [None, 2])
    sch.rfactor(k11, 0)
    check(sch, row_sum(4, 12))


@T.prim_func
def row_sum_odd_predicate(A: T.Buffer((4, 16), "float32"), B: T.Buffer((4,), "float32")):
    for i, k_0, k_1 in T.grid(4, 4, 4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            vk = T.axis.reduce(16, k_0 * 4 + k_1)
            T.where(k_1 - k_0 < 3)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def test_rfactor_of_a_predicate_it_cannot_read_is_refused():
    sch = Schedule(row_sum_odd_predicate)
    _, _, k_1 = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="cannot tell which values of loop 'k_1' run a reduction step"):
        sch.rfactor(k_1, 0)

"""compute_at / reverse_compute_at of blocks that do not index the moved buffer with
plain iterators: reversed indices, ``v // c`` / ``v % c`` splits, fused indices, tiles
of blockized blocks, constant dimensions and a reduction consumer indexed by its
reduction iterator.  Each result computes what the original does."""

import pytest
from sched_helpers import check, loop_extents
from sched_scripts import times_two_1d, times_two_2d

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError


@T.prim_func
def reversed_store(X: T.Buffer((10, 10), "float32"), Z: T.Buffer((10, 10), "float32")):
    Y = T.alloc_buffer((10, 10))
    for i, j in T.grid(10, 10):
        with T.block("b0"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[9 - vi, 9 - vj] = X[vi, vj] + T.float32(1)
    for i, j in T.grid(10, 10):
        with T.block("b1"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vj, vi] * T.float32(2)


@T.prim_func
def split_load(X: T.Buffer((16, 16), "float32"), Y: T.Buffer((256,), "float32")):
    temp = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            temp[vi, vj] = X[vj, vi] + T.float32(1)
    for i in range(256):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            Y[vi] = temp[vi // 16, vi % 16]


@T.prim_func
def fused_load(A: T.Buffer((3, 16), "float32"), C: T.Buffer((6, 8), "float32")):
    B = T.alloc_buffer((3, 16))
    for i0, i1 in T.grid(3, 16):
        with T.block("B"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            B[v0, v1] = A[v0, v1] + T.float32(1)
    for a0, a1 in T.grid(6, 8):
        with T.block("C"):
            v0, v1 = T.axis.remap("SS", [a0, a1])
            C[v0, v1] = B[(v0 * 8 + v1) // 16, (v0 * 8 + v1) % 16]


@T.prim_func
def blockized_producer(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    B = T.alloc_buffer((64, 64))
    for io, jo in T.grid(4, 4):
        with T.block("B_outer"):
            vio, vjo = T.axis.remap("SS", [io, jo])
            T.reads(A[vio * 16:vio * 16 + 16, vjo * 16:vjo * 16 + 16])
            T.writes(B[vio * 16:vio * 16 + 16, vjo * 16:vjo * 16 + 16])
            for ii, ji in T.grid(16, 16):
                with T.block("B_inner"):
                    vi = T.axis.spatial(64, vio * 16 + ii)
                    vj = T.axis.spatial(64, vjo * 16 + ji)
                    B[vi, vj] = A[vi, vj] * T.float32(2)
    for io, jo, ii, ji in T.grid(2, 2, 32, 32):
        with T.block("C"):
            vi = T.axis.spatial(64, io * 32 + ii)
            vj = T.axis.spatial(64, jo * 32 + ji)
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def row_sum_two_stage(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    P = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("P"):
            vi, vj = T.axis.remap("SS", [i, j])
            P[vi, vj] = A[vi, vj] * T.float32(3)
    for i, k in T.grid(16, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + P[vk, vi]


def test_compute_at_solves_reversed_indices():
    sch = Schedule(reversed_store)
    sch.compute_at(sch.get_block("b0"), sch.get_loops(sch.get_block("b1"))[0])
    assert len(sch.get_loops(sch.get_block("b0"))) == 2  # one value of vj per i: a single new loop
    assert "T.axis.spatial(10, 9 - i)" in sch.mod["main"].script()
    check(sch, reversed_store)


def test_reverse_compute_at_solves_split_indices():
    sch = Schedule(split_load)
    sch.reverse_compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("A"))[0])
    assert loop_extents(sch, sch.get_block("B")) == [16, 16]
    check(sch, split_load)


def test_reverse_compute_at_solves_fused_indices():
    sch = Schedule(fused_load)
    sch.reverse_compute_at(sch.get_block("C"), sch.get_loops(sch.get_block("B"))[0])
    assert loop_extents(sch, sch.get_block("C")) == [3, 2, 8]
    check(sch, fused_load)


def test_compute_at_solves_blockized_tiles():
    sch = Schedule(blockized_producer)
    sch.compute_at(sch.get_block("B_outer"), sch.get_loops(sch.get_block("C"))[1], preserve_unit_loops=True)
    assert loop_extents(sch, sch.get_block("B_outer")) == [2, 2, 2, 2]
    check(sch, blockized_producer)


def test_reverse_compute_at_reduction_indexed_by_its_reduction_iterator():
    sch = Schedule(row_sum_two_stage)
    sch.reverse_compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("P"))[0])
    check(sch, row_sum_two_stage)


@T.prim_func
def diagonal_mixed(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, (vi + vj) % 16] = A[vj]
    for i in range(16):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi, vi]


def test_compute_at_refuses_indices_it_cannot_solve():
    sch = Schedule(diagonal_mixed)
    with pytest.raises(ScheduleError, match="distinct block iterators"):
        sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0])


# -- reverse_compute_inline of consumers that load through an affine map ---------------

@T.prim_func
def fused_rows_load(A: T.Buffer((128, 128), "float32"), B: T.Buffer((8, 16), "float32"),
                    D: T.Buffer((1, 8, 16, 128), "float32")):
    C = T.alloc_buffer((128, 128))
    times_two_2d(A, C, 128, 128)
    for i, j, k, m in T.grid(1, 8, 16, 128):
        with T.block("C"):
            vi, vj, vk, vm = T.axis.remap("SSSS", [i, j, k, m])
            D[vi, vj, vk, vm] = C[vj * 16 + vk, vm] + B[vj, vk]


@T.prim_func
def flat_split_load(A: T.Buffer((16, 16), "float32"), C: T.Buffer((4, 8, 8), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j, k in T.grid(4, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = B[((vi * 8 + vj) * 8 + vk) // 16, ((vi * 8 + vj) * 8 + vk) % 16] * T.float32(3)


@T.prim_func
def overcomputed_producer(A: T.Buffer((16, 16), "float32"), C: T.Buffer((15, 13), "float32")):
    B = T.alloc_buffer((16, 16))
    times_two_2d(A, B, 16, 16)
    for i, j in T.grid(15, 13):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


def test_reverse_compute_inline_inverts_a_fused_load():
    sch = Schedule(fused_rows_load)
    sch.reverse_compute_inline(sch.get_block("C"))
    text = sch.mod["main"].script()
    assert "D[0, vi // 16, vi % 16, vj]" in text
    check(sch, fused_rows_load)


def test_reverse_compute_inline_inverts_a_flattened_load():
    sch = Schedule(flat_split_load)
    sch.reverse_compute_inline(sch.get_block("C"))
    assert "C[(vj + vi * 16) // 64, (vj + vi * 16) // 8 % 8, (vj + vi * 16) % 8]" in sch.mod["main"].script()
    check(sch, flat_split_load)


def test_reverse_compute_inline_overcomputed_producer_gets_a_predicate():
    sch = Schedule(overcomputed_producer)
    sch.reverse_compute_inline(sch.get_block("C"))
    assert "T.where(i < 15 and j < 13)" in sch.mod["main"].script()
    check(sch, overcomputed_producer)


@T.prim_func
def non_affine_load(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi * vi % 16]


def test_reverse_compute_inline_refuses_a_non_affine_load():
    sch = Schedule(non_affine_load)
    with pytest.raises(ScheduleError, match="distinct block iterators"):
        sch.reverse_compute_inline(sch.get_block("C"))


# -- inlining refuses buffers used other than through loads and stores ----------------

@T.prim_func
def pointer_use(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    times_two_1d(A, B, 16)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            T.reads(B[0:16])
            T.writes(C[vi])
            T.evaluate(B.access_ptr("r", extent=16))
            C[vi] = B[vi] + T.float32(1)


@T.prim_func
def matched_use(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    times_two_1d(A, B, 16)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            Bv = T.match_buffer(B[vi:vi + 1], (1,))
            C[vi] = Bv[0] + T.float32(1)


@pytest.mark.parametrize("func, why", [(pointer_use, "its data pointer is used directly"),
                                       (matched_use, "block 'C' matches a region of it")])
def test_compute_inline_refuses_opaque_access(func, why):
    sch = Schedule(func)
    with pytest.raises(ScheduleError, match=f"buffer 'B' is accessed opaquely \\({why}\\)"):
        sch.compute_inline(sch.get_block("B"))


@T.prim_func
def two_producers(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    C = T.alloc_buffer((16, 16))
    times_two_2d(A, B, 16, 16)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(16, 16):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = B[vi, vj] + C[vi, vj]


def test_reverse_compute_at_needs_every_producer_under_the_loop():
    sch = Schedule(two_producers)
    with pytest.raises(ScheduleError, match="block 'B' also writes 'B' but is not under loop 'i'.*requires all "
                                            "the producer blocks"):
        sch.reverse_compute_at(sch.get_block("D"), sch.get_loops(sch.get_block("C"))[0])


@T.prim_func
def guarded_wide_consumer(A: T.Buffer((32, 1), "float32"), C: T.Buffer((32, 1), "float32")):
    B = T.alloc_buffer((32, 1))
    times_two_2d(A, B, 32, 1)
    for i, j in T.grid(32, 32):
        with T.block("C"):
            vi = T.axis.spatial(32, i)
            vj = T.axis.spatial(1, j)
            T.where(j < 1)
            C[vi, vj] = B[vi, vj] + T.float32(1)


def test_compute_at_clips_the_region_to_the_producer_domain():
    """C's loop j runs 32 times (guarded to one): B needs its single value of vj."""
    sch = Schedule(guarded_wide_consumer)
    sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0], preserve_unit_loops=True)
    assert loop_extents(sch, sch.get_block("B")) == [32, 1, 1]
    check(sch, guarded_wide_consumer)


@T.prim_func
def unit_row_two_readers(X: T.Buffer((1, 8), "float32"), Z: T.Buffer((1, 8), "float32")):
    E = T.alloc_buffer((1, 8))
    S = T.alloc_buffer((1,))
    for i, j in T.grid(1, 8):
        with T.block("E"):
            vi, vj = T.axis.remap("SS", [i, j])
            E[vi, vj] = X[vi, vj] + T.float32(1)
    for i in range(1):
        for j in range(8):
            with T.block("S"):
                vi = T.axis.spatial(1, 0)  # the unit row written as its constant
                vj = T.axis.reduce(8, j)
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + E[vi, vj]
        for j in range(8):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = E[vi, vj] / S[vi]


def test_compute_at_unit_loop_row_read_as_constant_and_as_loop_var_has_constant_extents():
    # one reader indexes the unit row as 0, the other as i (range [0, 0]): the union of the
    # two is row 0, not a loop of extent max(0, i) - min(0, i) + 1 (which DisallowDynamicLoop rejects)
    sch = Schedule(unit_row_two_readers)
    i = sch.get_loops("S")[0]
    sch.compute_at(sch.get_block("E"), i, preserve_unit_loops=True)
    assert loop_extents(sch, "E") == [1, 1, 8]
    check(sch, unit_row_two_readers)

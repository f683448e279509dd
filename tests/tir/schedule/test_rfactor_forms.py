"""rfactor on reductions written with a let, over a loop that drives no iterator, and its
refusal outside a stage pipeline; the results compute what the originals do."""

import pytest
from sched_helpers import check

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError


@T.prim_func
def matmul_with_let(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                    C: T.Buffer((16, 16), "float32")):
    for i, j, ko, ki in T.grid(16, 16, 4, 4):
        with T.block("update"):
            vi, vj = T.axis.remap("SS", [i, j])
            vk = T.axis.reduce(16, ko * 4 + ki)
            T.reads(A[vi, vk], B[vj, vk])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            acc: T.float32 = C[vi, vj] + A[vi, vk] * B[vj, vk]
            C[vi, vj] = acc


@T.prim_func
def fused_square_sum(A: T.Buffer((4, 8, 8), "float32"), C: T.Buffer((4,), "float32")):
    for b, f_outer, f_inner in T.grid(4, 64, 1):  # noqa: B007 - the unit loop rfactor is given
        with T.block("C"):
            vb = T.axis.spatial(4, b)
            vi = T.axis.reduce(8, f_outer // 8)
            vj = T.axis.reduce(8, f_outer % 8)
            with T.init():
                C[vb] = T.float32(0)
            C[vb] = C[vb] + A[vb, vi, vj] * A[vb, vi, vj]


@T.prim_func
def partial_producer(A: T.Buffer((16, 16), "float32"), D: T.Buffer((32,), "float32")):
    C = T.alloc_buffer((32,))
    for i, k in T.grid(16, 16):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]
    for i in range(32):
        with T.block("D"):
            vi = T.axis.remap("S", [i])
            D[vi] = C[vi]


def test_rfactor_sees_through_a_let():
    sch = Schedule(matmul_with_let)
    loops = sch.get_loops(sch.get_block("update"))
    sch.rfactor(loops[3], 0)
    assert "acc" not in sch.mod["main"].script()
    check(sch, matmul_with_let)


def test_rfactor_over_a_loop_that_drives_no_iterator_keeps_the_reduction_iterators():
    sch = Schedule(fused_square_sum)
    rf = sch.rfactor(sch.get_loops(sch.get_block("C"))[2], 0)
    names = [iv.var.name for iv in sch.get(rf).iter_vars]
    assert names[2:] == ["vi", "vj"]  # kept as they were, bound to f_outer // 8 and f_outer % 8
    check(sch, fused_square_sum)


def test_rfactor_refuses_a_scope_that_is_not_a_stage_pipeline():
    sch = Schedule(partial_producer)
    with pytest.raises(ScheduleError, match="is not a stage pipeline"):
        sch.rfactor(sch.get_loops(sch.get_block("C"))[1], 0)


def argmax_rows(let_per_accumulator: bool = True):
    """Row-wise argmax of (idx, val), 8 x 32, the reduction split 4 x 8.  Its update binds
    each accumulator's new value with a let; ``let_per_accumulator=False`` stores the value
    one directly (the form rfactor refuses)."""

    @T.prim_func
    def argmax_rows(idx: T.Buffer((8, 32), "int32"), val: T.Buffer((8, 32), "float32"),
                    out_i: T.Buffer((8,), "int32"), out_v: T.Buffer((8,), "float32")):
        for i, ko, ki in T.grid(8, 4, 8):
            with T.block("argmax"):
                vi = T.axis.spatial(8, i)
                vk = T.axis.reduce(32, ko * 8 + ki)
                T.reads(idx[vi, vk], val[vi, vk])
                T.writes(out_i[vi], out_v[vi])
                with T.init():
                    out_i[vi] = -1
                    out_v[vi] = T.min_value("float32")
                new_i: T.int32 = T.Select(out_v[vi] >= val[vi, vk], out_i[vi], idx[vi, vk])
                if let_per_accumulator:  # decided while parsing
                    new_v: T.float32 = T.Select(out_v[vi] >= val[vi, vk], out_v[vi], val[vi, vk])
                    out_i[vi] = new_i
                    out_v[vi] = new_v
                else:
                    out_i[vi] = new_i
                    out_v[vi] = T.Select(out_v[vi] >= val[vi, vk], out_v[vi], val[vi, vk])

    return argmax_rows


@pytest.mark.parametrize("loop", [1, 2])
def test_rfactor_of_an_argmax_pair(loop):
    func = argmax_rows()
    sch = Schedule(func)
    rf = sch.rfactor(sch.get_loops(sch.get_block("argmax"))[loop], 1)
    assert [b.name for b in sch.get(sch.get_block("root")).alloc_buffers] == ["out_i_rf", "out_v_rf"]
    assert sch.get(rf).name_hint == "argmax_rf"
    check(sch, func)


def test_rfactor_of_an_argmax_pair_needs_a_let_per_accumulator():
    sch = Schedule(argmax_rows(let_per_accumulator=False))
    with pytest.raises(ScheduleError, match="must bind each accumulator's new value with a let"):
        sch.rfactor(sch.get_loops(sch.get_block("argmax"))[2], 1)


@T.prim_func
def consumer_after_a_sibling(A: T.Buffer((4, 8, 8), "float32"), F: T.Buffer((4, 8), "float32")):
    C = T.alloc_buffer((4, 8))
    D = T.alloc_buffer((4, 8))
    E = T.alloc_buffer((4, 8))
    for i in range(4):
        for j1 in range(8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j1])
                C[vi, vj] = A[vi, vj, 0]
            for k in range(8):
                with T.block("D"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j1, k])
                    with T.init():
                        D[vi, vj] = T.float32(0)
                    D[vi, vj] = D[vi, vj] + A[vi, vj, vk] + C[vi, vj]
        for j2 in range(8):
            for k in range(8):
                with T.block("E"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j2, k])
                    with T.init():
                        E[vi, vj] = T.float32(0)
                    E[vi, vj] = E[vi, vj] + A[vi, vj, vk] + D[vi, vj]
            for k in range(8):
                with T.block("F"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j2, k])
                    with T.init():
                        F[vi, vj] = T.float32(0)
                    F[vi, vj] = F[vi, vj] + A[vi, vj, vk] + E[vi, vj]


def test_region_cover_relaxes_loops_above_a_statement_sequence():
    """E reads D[i, j2]; D is written under loop j1, whose body is a sequence (C, then D's
    nest): over j1 it covers D[i, 0:8] (below the common loop i), so the scope is a stage
    pipeline."""
    from ember.tir.schedule.cached_flags import cached_flags, stage_pipeline

    func = consumer_after_a_sibling
    sch = Schedule(func)
    assert cached_flags(func, sch.get(sch.get_block("E"))).region_cover
    assert stage_pipeline(func, sch.get(sch.get_block("root")))

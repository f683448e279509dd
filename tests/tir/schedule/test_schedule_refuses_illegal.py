"""Issue 15: schedule primitives that used to accept illegal requests (and then computed
the wrong thing) now raise ScheduleError with the reason."""

import numpy as np
import pytest
from sched_helpers import check
from sched_workloads import conv2d, matmul_relu

import ember
from ember import te, tir
from ember.script import tir as T
from ember.tir.schedule import ScheduleError


def _scale(n=None):
    n = te.var("n") if n is None else n
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] * 2, name="B")
    return te.create_prim_func([A, B])


def test_split_symbolic_loop_with_fixed_factors():
    sch = tir.Schedule(_scale())
    (i,) = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match=r"split: the factors \[2, 2\] have the fixed product 4, which may "
                                            r"not cover the symbolic extent n of loop 'i'; give None"):
        sch.split(i, [2, 2])
    ko, ki = sch.split(i, [None, 2])  # still fine, and correct for n = 10
    f = ember.build(sch.mod, target="llvm")
    a, b = np.arange(10, dtype="float32"), np.zeros(10, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, a * 2)


@pytest.mark.parametrize("factors", [[1 << 40, None], [None, 1 << 40], [1 << 16, 1 << 16]])
def test_split_factor_that_does_not_fit_the_loop_dtype(factors):
    sch = tir.Schedule(_scale(10))
    (i,) = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match=r"split: the factors .* which does not fit the int32 loop 'i' "
                                            r"\(at most 2147483647\)"):
        sch.split(i, factors)


def test_split_by_factor_larger_than_extent_still_computes_everything():
    sch = tir.Schedule(_scale(10))
    (i,) = sch.get_loops(sch.get_block("B"))
    sch.split(i, [None, 16])
    text = sch.mod["main"].script()
    from ember.script import from_source
    ember.ir.assert_structural_equal(from_source(text), sch.mod["main"])
    b = np.zeros(10, "float32")
    ember.build(sch.mod, target="llvm")(np.ones(10, "float32"), b)
    np.testing.assert_array_equal(b, 2)


def _sum_then_add():
    A = te.placeholder((8, 8), "float32", name="A")
    k = te.reduce_axis((0, 8), "k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    C = te.compute((8,), lambda i: B[i] + 1, name="C")
    return te.create_prim_func([A, C])


def test_reverse_compute_at_under_a_reduction_loop():
    sch = tir.Schedule(_sum_then_add())
    i, k = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="reverse_compute_at: loop 'k' drives the reduction iterator 'v_k' of "
                                            "block 'B'; block 'C' under it would read partial results"):
        sch.reverse_compute_at(sch.get_block("C"), k)
    sch.reverse_compute_at(sch.get_block("C"), i)  # after the whole reduction: legal


def test_reverse_compute_at_under_an_outer_reduction_loop():
    sch = tir.Schedule(_sum_then_add())
    i, k = sch.get_loops(sch.get_block("B"))
    sch.reorder(k, i)
    with pytest.raises(ScheduleError, match="loop 'k' drives the reduction iterator"):
        sch.reverse_compute_at(sch.get_block("C"), i)


@T.prim_func
def cache_first(A: T.Buffer((8,), "float32"), X: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((8,))
    X_global = T.alloc_buffer((8,))
    for ax0 in range(8):
        with T.block("X_global"):
            v0 = T.axis.spatial(8, ax0)
            X_global[v0] = X[v0]
    for i in range(8):
        with T.block("B"):
            v_i = T.axis.spatial(8, i)
            B[v_i] = A[v_i] * T.float32(2.0)
    for i_1 in range(8):
        with T.block("C"):
            v_i_1 = T.axis.spatial(8, i_1)
            C[v_i_1] = B[v_i_1] + X_global[v_i_1]


def test_reverse_compute_at_before_another_producer():
    sch = tir.Schedule(cache_first)
    (ax0,) = sch.get_loops(sch.get_block("X_global"))
    with pytest.raises(ScheduleError, match="reverse_compute_at: block 'C' reads what block 'B' writes, which "
                                            "runs after loop 'ax0'"):
        sch.reverse_compute_at(sch.get_block("C"), ax0)


def test_reverse_compute_at_after_cache_read_legal_case():
    A = te.placeholder((8,), "float32", name="A")
    X = te.placeholder((8,), "float32", name="X")
    B = te.compute((8,), lambda i: A[i] * 2, name="B")
    C = te.compute((8,), lambda i: B[i] + X[i], name="C")
    sch = tir.Schedule(te.create_prim_func([A, X, C]))
    # B's copy goes between B and C (an input's copy would go first, before B, as TVM)
    cache = sch.cache_read(sch.get_block("C"), 0, "global")
    (i,) = sch.get_loops(cache)
    sch.reverse_compute_at(sch.get_block("C"), i)
    out = np.zeros(8, "float32")
    a, x = np.arange(8, dtype="float32"), np.ones(8, "float32")
    ember.build(sch.mod, target="llvm")(a, x, out)
    np.testing.assert_array_equal(out, a * 2 + 1)


def _copy_then_add():
    A = te.placeholder((8,), "float32", name="A")
    B = te.compute((8,), lambda i: A[i] * 2, name="B")
    C = te.compute((8,), lambda i: B[i] + 1, name="C")
    return te.create_prim_func([A, C])


def test_transform_layout_non_injective_map():
    sch = tir.Schedule(_copy_then_add())
    with pytest.raises(ScheduleError, match=r"transform_layout: the index map lambda i: \(\(i % 2\),\) is not "
                                            r"injective on buffer 'B': indices \(0,\) and \(2,\) both map to \(0,\)"):
        sch.transform_layout(sch.get_block("B"), ("write", 0), lambda i: (i % 2,))


def test_transform_layout_injective_maps_are_accepted():
    sch = tir.Schedule(_copy_then_add())
    sch.transform_layout(sch.get_block("B"), ("write", 0), lambda i: (i // 4, i % 4))
    sch2 = tir.Schedule(_copy_then_add())
    # padded (3 x 3): TVM asks for pad_value or assume_injective_transform
    sch2.transform_layout(sch2.get_block("B"), ("write", 0), lambda i: (i // 3, i % 3), pad_value=0.0)
    for s in (sch, sch2):
        out = np.zeros(8, "float32")
        ember.build(s.mod, target="llvm")(np.arange(8, dtype="float32"), out)
        np.testing.assert_array_equal(out, np.arange(8) * 2 + 1)


def test_transform_layout_padded_split_of_a_large_buffer_is_accepted():
    A = te.placeholder((5000, 4100), "float32", name="A")
    B = te.compute((5000, 4100), lambda i, j: A[i, j] * 2, name="B")
    C = te.compute((5000, 4100), lambda i, j: B[i, j] + 1, name="C")
    sch = tir.Schedule(te.create_prim_func([A, C]))
    sch.transform_layout(sch.get_block("B"), ("write", 0), lambda j, k: (j // 16, k, j % 16), pad_value=0.0)
    with pytest.raises(ScheduleError, match="cannot prove that the index map .* is injective"):
        sch.transform_layout(sch.get_block("B"), ("write", 0), lambda a, b, c: (a, b, c % 4))


def test_transform_layout_refuses_silent_padding_and_mistyped_pad_values():
    sch = tir.Schedule(_copy_then_add())
    with pytest.raises(ScheduleError, match=r"pads buffer 'B' \(shape \('8',\) -> \('3', '3'\)\); give pad_value="):
        sch.transform_layout(sch.get_block("B"), ("write", 0), lambda i: (i // 3, i % 3))
    with pytest.raises(ScheduleError, match=r"pad_value 0 has dtype int32, but buffer 'B' holds float32"):
        sch.transform_layout(sch.get_block("B"), ("write", 0), lambda i: (i // 3, i % 3), pad_value=0)
    sch.transform_layout(sch.get_block("B"), ("write", 0), lambda i: (i // 3, i % 3),
                         assume_injective_transform=True)
    out = np.zeros(8, "float32")
    ember.build(sch.mod, target="llvm")(np.arange(8, dtype="float32"), out)
    np.testing.assert_array_equal(out, np.arange(8) * 2 + 1)


def test_rfactor_of_a_block_after_another_under_its_outermost_loop():
    """Found by the schedule property test: the write-back block of one rfactor, moved by
    reverse_compute_at under the rf block's loop, was rfactored again; its new rf nest
    ran before that loop and read the partial sums before they were computed."""
    original = matmul_relu(8, 8, 4)
    sch = tir.Schedule(original)
    sch.rfactor(sch.get_loops(sch.get_block("C"))[2], 0)
    sch.reverse_compute_at(sch.get_block("C"), sch.get_loops(sch.get_block("C_rf"))[0],
                           preserve_unit_loops=False)
    with pytest.raises(ScheduleError, match="rfactor: block 'C' must be the first block under its outermost "
                                            "loop 'i', which runs block 'C_rf' before it"):
        sch.rfactor(sch.get_loops(sch.get_block("C"))[1], 0)
    check(sch, original)


def test_reverse_compute_at_of_a_padding_block_under_its_input_copy():
    """Found by the schedule property test: a padding block moved under the loop of the
    cache stage it reads would run only its interior; its zero border reads nothing the
    stage produces, so it was never written."""
    original = conv2d(1, 3, 5, 3, 2, 3, 3)
    sch = tir.Schedule(original)
    sch.cache_read(sch.get_block("Apad"), 0, "local")
    (ax0, *_) = sch.get_loops(sch.get_block("A_local"))
    with pytest.raises(ScheduleError, match=r"reverse_compute_at: under loop 'ax0', block 'Apad' would run "
                                            r"iterator 'v2' over \[1, 6\) only, not its whole domain \[0, 7\)"):
        sch.reverse_compute_at(sch.get_block("Apad"), ax0)
    check(sch, original)

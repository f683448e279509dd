"""Schedule primitives behaving as TVM's do where the exact form of the result matters:
the IR a primitive produces (iterator bindings, names), the errors it raises, and the
arguments it accepts. Each case also checks numerics against the unscheduled function."""

from __future__ import annotations

import numpy as np
import pytest

from ember import tir
from ember.ir import assert_structural_equal
from ember.script import tir as T
from sched_helpers import assert_same_numerics, outputs


def test_q_multiply_shift_per_axis_builds_a_call_of_its_first_argument_dtype():
    x = tir.Var("x", "int32")
    call = tir.q_multiply_shift_per_axis(x, x, x, x, 31, False, True)
    assert call.op.name == "tir.q_multiply_shift_per_axis"
    assert str(call.dtype) == "int32"


@T.prim_func
def scale_16(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * T.float32(2)


def test_transform_layout_assume_injective_transform_skips_the_injectivity_proof():
    from ember.tir.schedule import ScheduleError

    sch = tir.Schedule(scale_16)
    with pytest.raises(ScheduleError, match="not injective"):
        sch.transform_layout("B", ("write", 0), lambda i: [i // 2])
    # the caller's promise is taken as is (TVM's flag); the trace keeps it for replay
    sch = tir.Schedule(scale_16)
    sch.transform_layout("B", ("write", 0), lambda i: [i // 4, i % 4], assume_injective_transform=True)
    assert "assume_injective_transform=True" in str(sch.trace)
    replayed = tir.Schedule(scale_16)
    sch.trace.apply_to_schedule(replayed)
    assert_structural_equal(replayed.mod, sch.mod)
    a, b = outputs(scale_16), outputs(sch.mod["main"])
    np.testing.assert_allclose(a[1], b[1].reshape(16), rtol=1e-6)


@T.prim_func
def row_sum_128(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    for k, i in T.grid(128, 128):
        with T.block("B"):
            vk, vi = T.axis.remap("RS", [k, i])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def row_sum_128_blockized(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    with T.block("B_o"):
        vk_o = T.axis.reduce(1, 0)
        vi_o = T.axis.spatial(1, 0)
        T.reads(A[0:128, 0:128])
        T.writes(B[0:128])
        with T.init():
            for i_init in range(128):
                with T.block("B_init"):
                    vi_init = T.axis.spatial(128, i_init)
                    B[vi_init] = T.float32(0)
        for k, i in T.grid(128, 128):
            with T.block("B"):
                vk_i, vi_i = T.axis.remap("RS", [k, i])
                B[vi_i] = B[vi_i] + A[vi_i, vk_i]


def test_blockize_gives_every_iterator_an_outer_one_and_moves_the_init_out():
    sch = tir.Schedule(row_sum_128)
    k, _ = sch.get_loops(sch.get_block("B"))
    sch.blockize(k)
    assert_structural_equal(sch.mod["main"].body, row_sum_128_blockized.body)
    assert_same_numerics(row_sum_128, sch.mod["main"])


def test_blockize_drops_inner_iterators_of_extent_one_and_unit_loops_on_request():
    sch = tir.Schedule(scale_16)
    (i,) = sch.get_loops(sch.get_block("B"))
    i0, i1 = sch.split(i, [1, 16])
    sch.blockize(i1, preserve_unit_iters=False)
    text = sch.mod.script()
    assert "vi_o = T.axis.spatial(1, 0)" in text and "vi_i = T.axis.spatial(16, i_1)" in text
    assert_same_numerics(scale_16, sch.mod["main"])

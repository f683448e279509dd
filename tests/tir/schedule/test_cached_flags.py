"""ScheduleState._get_cached_flags: affine binding, region cover and stage pipeline."""

import pytest

from ember.script import tir as T
from ember.tir import ScheduleState
from ember.tir.schedule.state import CachedFlags
from ember.tir.schedule import analysis as A


@T.prim_func
def two_stages(A_: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A_[vi] * T.float32(2)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] + T.float32(1)


@T.prim_func
def half_produced(A_: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A_[vi]
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi]


@T.prim_func
def shifted_inside_loop(A_: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A_[vi]
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = T.if_then_else(vi >= 1, B[vi - 1], T.float32(0))


@T.prim_func
def non_affine(A_: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(4):
        with T.block("C"):
            vi = T.axis.spatial(16, i * i)
            C[vi] = A_[vi]


def _flags(func, name):
    state = ScheduleState(func)
    block = func.body.block if name == "root" else A.find_block(func, name).block
    return state._get_cached_flags(state.get_sref(block))


def test_producer_consumer_all_true():
    for name in ("root", "B", "C"):
        assert _flags(two_stages, name) == CachedFlags(True, True, True)


def test_uncovered_read_breaks_region_cover_and_pipeline():
    assert _flags(half_produced, "C") == CachedFlags(True, False, True)
    assert _flags(half_produced, "root").stage_pipeline is False


def test_region_compared_below_the_common_loop():
    # one iteration of i produces B[i] but C reads B[i - 1]
    assert _flags(shifted_inside_loop, "C").region_cover is False
    assert _flags(shifted_inside_loop, "B").region_cover is True


def test_non_affine_binding():
    assert _flags(non_affine, "C").affine_binding is False


def test_flags_of_a_loop_are_refused():
    state = ScheduleState(two_stages)
    loop = A.loops_above(two_stages, A.find_block(two_stages, "B"))[0]
    with pytest.raises(TypeError, match="sref of a block"):
        state._get_cached_flags(state.get_sref(loop))

"""TVM's spellings of the schedule API: primitives take a block's name, ``Schedule(mod=)``,
``ScheduleState``, ``tir.schedule.testing`` and the TVMError hierarchy."""

import numpy as np
import pytest

import ember
from ember import tir
from ember.script import tir as T
from ember.tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip,
)


@T.prim_func
def double_then_add(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((8,))
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi] + T.float32(1)


def test_primitives_accept_block_names_and_trace_the_lookup():
    sch = tir.Schedule(mod=double_then_add)
    sch.compute_inline("B")
    (loop,) = sch.get_loops("C")
    sch.split(loop, factors=[None, 4])
    trace = str(sch.trace)
    assert 'get_block(name="B"' in trace and 'get_block(name="C"' in trace
    verify_trace_roundtrip(sch, mod=double_then_add)
    mod = ember.build(sch.mod, target="llvm")
    a = np.arange(8, dtype="float32")
    c = np.zeros(8, dtype="float32")
    mod(a, c)
    np.testing.assert_allclose(c, a * 2 + 1)


def test_unknown_block_name_is_a_schedule_error():
    sch = tir.Schedule(double_then_add)
    with pytest.raises(tir.ScheduleError, match="nope"):
        sch.compute_inline("nope")


def test_schedule_error_is_a_tvm_error_and_a_value_error():
    assert issubclass(tir.ScheduleError, ember.TVMError)
    assert issubclass(tir.ScheduleError, ValueError)
    assert issubclass(ember.error.OpNotImplemented, NotImplementedError)


def test_schedule_takes_seed_by_keyword_only():
    with pytest.raises(TypeError):
        tir.Schedule(double_then_add, 42)
    tir.Schedule(double_then_add, seed=42)


def test_schedule_state_accepts_a_prim_func():
    state = tir.ScheduleState(double_then_add, debug_mask="all")
    assert state.func_name == "main"
    assert state.func is state.mod["main"]


def test_verify_trace_roundtrip_rejects_unknown_format():
    sch = tir.Schedule(double_then_add)
    with pytest.raises(ValueError, match="text_format"):
        verify_trace_roundtrip(sch, double_then_add, text_format="yaml")


def test_ignore_global_symbol():
    renamed = double_then_add.with_attr("global_symbol", "other")
    assert_structural_equal_ignore_global_symbol(renamed, double_then_add)


def test_device_builtins_build_calls():
    x = tir.Var("x", "float32")
    call = T.tvm_warp_shuffle_down(0, x, 1, 32, 32)
    assert call.dtype == x.dtype
    assert T.tvm_fill_fragment(x, 16, 16, 16, 0, 0.0).dtype == "handle"
    assert T.if_then_else(x > 1, 1, 0, dtype="int8").dtype == "int8"

"""Schedule primitives behaving as TVM's do where the exact form of the result matters:
the IR a primitive produces (iterator bindings, names), the errors it raises, and the
arguments it accepts. Each case also checks numerics against the unscheduled function."""

from __future__ import annotations

import pytest

from ember import tir
from ember.ir import assert_structural_equal
from ember.script import tir as T
from sched_helpers import assert_same_numerics


def test_q_multiply_shift_per_axis_builds_a_call_of_its_first_argument_dtype():
    x = tir.Var("x", "int32")
    call = tir.q_multiply_shift_per_axis(x, x, x, x, 31, False, True)
    assert call.op.name == "tir.q_multiply_shift_per_axis"
    assert str(call.dtype) == "int32"

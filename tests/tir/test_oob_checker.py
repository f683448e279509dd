"""tir.analysis.OOBChecker: provably out-of-bounds loads/stores are refused naming the
buffer; accesses the analyzer cannot bound pass."""

import pytest

from ember import tir
from ember.ir import IRModule
from ember.script import tir as T
from ember.tir.schedule import ScheduleError


@T.prim_func
def load_past_end(A: T.Buffer((2, 3), "float32"), B: T.Buffer((3, 2), "float32")):
    for i in range(3):
        B[i, 0] = A[i, 2]


@T.prim_func
def store_in_bounds(A: T.Buffer((2, 3), "float32"), B: T.Buffer((3, 2), "float32"), N: T.int32):
    for i in range(2):
        B[0, N] = A[i, 2]


def test_out_of_bounds_load_names_the_buffer():
    with pytest.raises(ScheduleError, match="out-of-bounds load of buffer A at dimension 0"):
        tir.analysis.OOBChecker()(IRModule.from_expr(load_past_end))


def test_unknown_bounds_and_in_bounds_pass():
    mod = IRModule.from_expr(store_in_bounds)
    assert tir.analysis.OOBChecker()(mod) is mod

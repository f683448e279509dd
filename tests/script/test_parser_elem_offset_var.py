"""TVMScript: a buffer declared with an offset factor but no elem_offset has a variable
offset (as TVM), bound to the matched region's start when lowered."""

import numpy as np

import ember
from ember.ir import Var, assert_structural_equal
from ember.script import from_source
from ember.script import tir as T


@T.prim_func
def row_offsets(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            A0 = T.match_buffer(A[vi, 0:4], (4,), offset_factor=1)
            B[vi] = A0.elem_offset


@T.prim_func
def no_factor(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            A0 = T.match_buffer(A[vi, 0:4], (4,))
            B[vi] = A0.elem_offset


def _view(func):
    return func.body.block.body.body.block.match_buffers[0].buffer


def test_offset_factor_gives_a_named_offset_variable():
    offset = _view(row_offsets).elem_offset
    assert isinstance(offset, Var) and offset.name == "A0_elem_offset"
    assert _view(no_factor).elem_offset is None


def test_offset_variable_is_the_region_start_when_run():
    b = ember.nd.array(np.zeros(4, "int32"))
    ember.build(row_offsets, target="llvm")(ember.nd.array(np.zeros((4, 4), "float32")), b)
    np.testing.assert_array_equal(b.numpy(), [0, 4, 8, 12])


def test_offset_variable_round_trips():
    assert_structural_equal(from_source(row_offsets.script(), {"T": T}), row_offsets)

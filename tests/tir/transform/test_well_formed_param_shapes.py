"""A parameter buffer whose shape is an expression defines the Vars in it; binary
intrinsics accept TVMScript's ``dtype=`` keyword."""

import ember as tvm
from ember.script import tir as T
from ember.tir.analysis.verify_well_formed import verify_well_formed


def test_var_inside_param_shape_expression_is_defined():
    @T.prim_func
    def scaled_shape(a: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n * 32,), "float32")
        A[T.min(T.int64(0), n)] = T.float32(0)

    assert verify_well_formed(scaled_shape)


def test_shift_left_accepts_dtype_keyword():
    n = tvm.tir.Var("n", "int32")
    call = tvm.tir.shift_left(n, 1, dtype="int32")
    assert call.op.name == "tir.shift_left" and call.dtype == "int32"

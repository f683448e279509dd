"""tir.op.cast folds a float constant into an integer type by truncation towards zero."""

import numpy as np

from ember.ir import Cast, FloatImm, IntImm, const
from ember.tir import op


def test_float_constant_to_int_truncates_like_c():
    for value in (3.5, -3.5, 0.99, 7.0):
        folded = op.cast(const(value, "float32"), "int32")
        assert isinstance(folded, IntImm) and folded.value == int(np.float32(value).astype(np.int32))


def test_float_constant_to_uint_and_bool():
    assert op.cast(const(2.75, "float32"), "uint8").value == 2
    assert op.cast(const(0.5, "float32"), "bool").value == 1


def test_non_finite_float_constant_stays_a_cast():
    cast = op.cast(FloatImm("float32", float("inf")), "int32")
    assert isinstance(cast, Cast) and str(cast.dtype) == "int32"

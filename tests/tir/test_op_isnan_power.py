"""tir.isnan and tir.power as TVM builds them, and bool vectors spelled uint1xN."""

import math

import pytest

from ember import te, tir
from ember.error import TVMError
from ember.ir import Cast, DataType, IntImm


def test_isnan_of_each_dtype():
    x = te.var("x", "float32")
    assert str(tir.isnan(x)) == "T.isnan(x)" and tir.isnan(x).dtype == "bool"
    half = tir.isnan(te.var("y", "float16"))
    assert isinstance(half.args[0], Cast) and half.args[0].dtype == "float32"
    assert isinstance(tir.isnan(te.var("z", "int32")), IntImm)
    assert tir.isnan(te.var("z", "int32")).value == 0
    assert str(tir.isnan(te.var("k", "int8x2")).dtype) == "uint1x2"
    assert tir.isnan(tir.const(math.nan, "float32")).value == 1
    assert tir.isnan(tir.const(1.0, "float32")).value == 0
    assert str(tir.isnan(x, dtype="bool")) == "T.isnan(x)"  # the keyword TVMScript prints


def test_power_needs_floats():
    a, b = te.var("a", "int32"), te.var("b", "float64")
    assert tir.power(a, b).dtype == "float64" and tir.power(a, b).args[0].dtype == "float64"
    with pytest.raises(TVMError, match="power only applies to float operands, got int32 and int32"):
        tir.power(a, te.var("c", "int32"))
    with pytest.raises(TypeError):
        te.power(a, a)


def test_bool_vectors_print_as_uint1():
    assert str(DataType("boolx4")) == "uint1x4" and DataType("uint1x4").is_bool
    assert str(DataType("bool")) == "bool"

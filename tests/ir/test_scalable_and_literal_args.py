"""Scalable vector types (lanes = vscale() * k) and Python numbers given to node constructors."""

import pytest

from ember import tir
from ember.ir import DataType
from ember.ir.expr import Broadcast, IntImm, Ramp, Select


def test_scalable_lanes_intern_by_factor():
    x = tir.Var("x", "int32")
    a = Ramp(x, 1, tir.vscale() * 4)
    b = Ramp(x, 2, tir.vscale() * 4)
    assert a.dtype is b.dtype
    assert str(a.dtype) == "int32xvscalex4"
    assert a.dtype.is_scalable_vector and a.dtype.is_vector and not a.dtype.is_scalar
    assert a.dtype.vscale_factor == 4
    assert (a + b).dtype is a.dtype


def test_scalar_broadcasts_to_scalable_vector():
    y = tir.Var("y", "int32")
    e = Broadcast(0, tir.vscale() * 8) + y
    assert str(e.dtype) == "int32xvscalex8"
    assert isinstance(e.b, Broadcast)


def test_bad_lanes_expression_is_refused():
    x = tir.Var("x", "int32")
    with pytest.raises(ValueError, match="vscale"):
        DataType.make(0, 32, x * 4)
    with pytest.raises(ValueError, match="not a scalable"):
        DataType("int32x4").vscale_factor


def test_python_numbers_in_constructors():
    x = tir.Var("x", "int64")
    r = Ramp(x, 1, 4)
    assert r.stride.dtype == "int64" and r.dtype == "int64x4"
    assert isinstance(Ramp(0, 1, IntImm("int32", 2)).lanes, int)
    assert Broadcast(0, 4).dtype == "int32x4"
    s = Select(x < 0, x, 0)
    assert s.false_value.dtype == "int64"
    assert Select(x < 0, 1, 0).dtype == "int32"
    buf = tir.decl_buffer([4], "float32")
    load = tir.BufferLoad(buf, [0])
    assert isinstance(load.indices, tuple) and load.dtype == "float32"


def test_cast_accepts_dtype_strings_and_numbers():
    from ember.ir.expr import Cast

    c = Cast("float32", tir.Var("x", "int32"))
    assert c.dtype is DataType("float32")
    assert Cast("int8", 3).value.dtype == "int32"

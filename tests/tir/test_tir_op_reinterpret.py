"""tir.reinterpret: to the value's own type it is the value itself, as TVM folds it."""

from ember import tir
from ember.ir import Call


def test_reinterpret_to_the_same_type_is_the_value():
    x = tir.Var("x", "float32")
    assert tir.reinterpret("float32", x) is x


def test_reinterpret_to_another_type_is_a_call():
    x = tir.Var("x", "float32")
    call = tir.reinterpret("int32", x)
    assert isinstance(call, Call) and str(call.dtype) == "int32" and call.args == (x,)

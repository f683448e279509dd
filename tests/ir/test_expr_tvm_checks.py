"""Checks TVM makes when expressions are built: Let binds only its variable's dtype, a Var is
named by a str, None is not an operand (but a StringImm compares with it), and unknown
dtype strings raise a TVMError."""

import pytest

from ember import tir
from ember.error import TVMError
from ember.ir import IntImm, Let, StringImm, Var
from ember.runtime import DataType


def test_let_value_must_have_the_variables_dtype():
    x = Var("x", "int32")
    assert Let(x, 3, x + 1).dtype == "int32"
    assert Let(x, Var("y", "int32"), x).value.dtype == "int32"
    for value_dtype in ("int64", "uint32", "float32"):
        with pytest.raises(TVMError, match=r"Let: the value of x \(int32\) has dtype " + value_dtype):
            Let(x, Var("v", value_dtype), x)


def test_var_name_must_be_a_str():
    with pytest.raises(TVMError, match="Var: name must be a str, got int 1"):
        Var(name=1, dtype="int32")
    with pytest.raises(TypeError):
        tir.Var(2, "float32")


def test_none_is_not_an_operand():
    a = IntImm("int8", 1)
    for build in (lambda: a != None, lambda: a == None, lambda: a + None):  # noqa: E711
        with pytest.raises(ValueError, match="an operand is None"):
            build()
    with pytest.raises(TypeError):
        a * None
    s = StringImm("abc")
    assert s != None and not s == None  # noqa: E711


def test_unknown_dtype_is_a_tvm_error():
    for bad in ("float8", "int40", "floaty"):
        with pytest.raises(TVMError, match=f"unknown data type '{bad}'"):
            DataType(bad)
    with pytest.raises(ValueError):
        DataType("float7")

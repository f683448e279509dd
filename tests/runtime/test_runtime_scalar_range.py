"""Issue 15: an integer scalar argument out of its dtype's range (``n = 2**40`` for an int32
``n``) or negative where it is a size is reported on the scalar, with its range and value
(it used to be truncated, or blamed on a buffer's shape)."""

import re

import numpy as np
import pytest

import ember
from ember import te
from ember.runtime import ArgumentError


@pytest.fixture(scope="module")
def add_one_n():
    n = te.var("n")
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    return ember.build(te.create_prim_func([A, B, n]), target="llvm")


@pytest.mark.parametrize("value", [1 << 40, (1 << 32) + 4, -(1 << 31) - 1])
def test_int32_scalar_out_of_range_names_the_scalar(add_one_n, value):
    a, b = np.ones(4, "float32"), np.zeros(4, "float32")
    with pytest.raises(ArgumentError, match=re.escape(
            f"main: argument 'n' (#3): expected a value of dtype int32 in [-2147483648, 2147483647], got {value}")):
        add_one_n(a, b, value)
    np.testing.assert_array_equal(b, 0)


def test_negative_size_names_the_scalar(add_one_n):
    with pytest.raises(ArgumentError, match=re.escape(
            "main: argument 'n' (#3): is a size (in the shape of 'A', 'B'), expected >= 0, got -3")):
        add_one_n(np.ones(4, "float32"), np.zeros(4, "float32"), -3)


def test_in_range_scalar_still_runs(add_one_n):
    b = np.zeros(4, "float32")
    add_one_n(np.ones(4, "float32"), b, 4)
    np.testing.assert_array_equal(b, 2)


def test_uint8_scalar_range():
    x = te.var("x", "uint8")
    A = te.placeholder((3,), "uint8", name="A")
    B = te.compute((3,), lambda i: A[i] + x, name="B")
    f = ember.build(te.create_prim_func([A, B, x]), target="llvm")
    out = np.zeros(3, "uint8")
    f(np.arange(3, dtype="uint8"), out, 255)
    np.testing.assert_array_equal(out, (np.arange(3) + 255) % 256)
    with pytest.raises(ArgumentError, match=re.escape("argument 'x' (#3): expected a value of dtype uint8 in [0, 255], got 256")):
        f(np.arange(3, dtype="uint8"), out, 256)


def test_int64_scalar_beyond_int64_is_refused():
    s = te.var("s", "int64")
    A = te.placeholder((2,), "int64", name="A")
    B = te.compute((2,), lambda i: A[i] + s, name="B")
    f = ember.build(te.create_prim_func([A, B, s]), target="llvm")
    out = np.zeros(2, "int64")
    with pytest.raises(ArgumentError, match=re.escape(
            "argument 's' (#3): expected a value of dtype int64 in [-9223372036854775808, 9223372036854775807], "
            "got 9223372036854775808")):
        f(np.zeros(2, "int64"), out, 1 << 63)
    f(np.zeros(2, "int64"), out, (1 << 63) - 1)
    np.testing.assert_array_equal(out, (1 << 63) - 1)

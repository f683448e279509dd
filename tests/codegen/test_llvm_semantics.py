"""Exact TIR semantics of the arithmetic nodes: floor vs truncating division, min/max, select."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.ir import Div, FloorDiv, FloorMod, Max, Min, Mod, Select
from ember.tir.op import if_then_else

from codegen_helpers import elementwise

N = 64
OPS = {
    "floordiv": (FloorDiv, np.floor_divide),
    "floormod": (FloorMod, np.mod),
    "truncdiv": (Div, lambda a, b: np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))),
    "truncmod": (Mod, np.fmod),
}
_MODULES: dict = {}


def _module(op: str, dtype: str):
    key = (op, dtype)
    if key not in _MODULES:
        node = OPS[op][0]
        _MODULES[key] = ember.build(elementwise(lambda a, b: node(a, b), [dtype, dtype], dtype), target="llvm")
    return _MODULES[key]


def _operands(dtype):
    info = np.iinfo(dtype)
    lo, hi = info.min + 1, info.max  # avoid MIN / -1 (undefined in C and LLVM)
    values = st.integers(lo, hi)
    divisors = st.integers(lo, hi).filter(lambda v: v != 0)
    return st.lists(st.tuples(values, divisors), min_size=1, max_size=N)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint32"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_integer_division_family_matches_numpy(op, dtype, data):
    pairs = data.draw(_operands(dtype))
    a = np.array([p[0] for p in pairs], dtype)
    b = np.array([p[1] for p in pairs], dtype)
    out = np.zeros_like(a)
    _module(op, dtype)(a, b, out)
    np.testing.assert_array_equal(out, OPS[op][1](a, b).astype(dtype))


def test_floor_division_negative_examples():
    a = np.array([-7, 7, -7, 7, -6, 0], "int32")
    b = np.array([2, -2, -2, 2, 3, -5], "int32")
    out = np.zeros_like(a)
    _module("floordiv", "int32")(a, b, out)
    np.testing.assert_array_equal(out, [-4, -4, 3, 3, -2, 0])
    _module("floormod", "int32")(a, b, out)
    np.testing.assert_array_equal(out, [1, -1, -1, 1, 0, 0])
    _module("truncdiv", "int32")(a, b, out)
    np.testing.assert_array_equal(out, [-3, -3, 3, 3, -2, 0])
    _module("truncmod", "int32")(a, b, out)
    np.testing.assert_array_equal(out, [-1, 1, -1, 1, 0, 0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_floordiv_floormod(dtype):
    a = np.array([-7.5, 7.5, -7.5, 0.25], dtype)
    b = np.array([2.0, -2.0, -2.0, 0.5], dtype)
    for op, ref in ((FloorDiv, np.floor_divide), (FloorMod, np.mod)):
        mod = ember.build(elementwise(lambda x, y, op=op: op(x, y), [dtype, dtype], dtype), target="llvm")
        out = np.zeros_like(a)
        mod(a, b, out)
        np.testing.assert_array_equal(out, ref(a, b))


@pytest.mark.parametrize("dtype", ["int32", "uint32", "float32", "int8", "float64"])
def test_min_max(dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(50) * 100).astype(dtype)
    b = (rng.standard_normal(50) * 100).astype(dtype)
    out = np.zeros_like(a)
    ember.build(elementwise(lambda x, y: Min(x, y), [dtype, dtype], dtype), target="llvm")(a, b, out)
    np.testing.assert_array_equal(out, np.minimum(a, b))
    ember.build(elementwise(lambda x, y: Max(x, y), [dtype, dtype], dtype), target="llvm")(a, b, out)
    np.testing.assert_array_equal(out, np.maximum(a, b))


def test_select_and_if_then_else():
    a = np.array([-2.0, -1.0, 0.0, 1.0, 2.0], "float32")
    out = np.zeros_like(a)
    ember.build(elementwise(lambda x: Select(x > 0.0, x, x * 0.5), ["float32"], "float32"), target="llvm")(a, out)
    np.testing.assert_array_equal(out, np.where(a > 0, a, a * 0.5))
    ember.build(elementwise(lambda x: if_then_else(x < 0.0, -x, x), ["float32"], "float32"), target="llvm")(a, out)
    np.testing.assert_array_equal(out, np.abs(a))

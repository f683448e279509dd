"""Every dtype through load → arithmetic → store, against numpy."""

import numpy as np
import pytest

from ember.ir import Cast, DataType

from codegen_helpers import elementwise, run

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]


def _ints(dtype, n=257, seed=0):
    info = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(info.min, info.max, n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_add_mul_sub_wrap_like_numpy(dtype):
    a, b = _ints(dtype, seed=1), _ints(dtype, seed=2)
    out = run(elementwise(lambda x, y: x * y + x - y, [dtype, dtype], dtype), a, b, out_dtype=dtype)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, a * b + a - b)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_comparison_respects_signedness(dtype):
    a, b = _ints(dtype, seed=3), _ints(dtype, seed=4)
    out = run(elementwise(lambda x, y: x < y, [dtype, dtype], "bool"), a, b, out_dtype="bool")
    np.testing.assert_array_equal(out, a < b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_arithmetic(dtype):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(100).astype(dtype)
    b = (rng.standard_normal(100) + 3).astype(dtype)
    out = run(elementwise(lambda x, y: x * y + x / y - y, [dtype, dtype], dtype), a, b, out_dtype=dtype)
    np.testing.assert_array_equal(out, a * b + a / b - b)


def test_bool_logic_and_storage():
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    out = run(elementwise(lambda x, y: (x & y) | ~y, ["bool", "bool"], "bool"), a, b, out_dtype="bool")
    np.testing.assert_array_equal(out, (a & b) | ~b)


def test_float_ne_is_true_for_nan():
    a = np.array([np.nan, 1.0, 2.0], "float32")
    out = run(elementwise(lambda x: x != x, ["float32"], "bool"), a, out_dtype="bool")
    np.testing.assert_array_equal(out, [True, False, False])


ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)


def test_bfloat16_copy_and_arithmetic():
    rng = np.random.default_rng(6)
    a = rng.standard_normal(64).astype(BF16)
    b = rng.standard_normal(64).astype(BF16)
    out = run(elementwise(lambda x, y: x * y + x, ["bfloat16", "bfloat16"], "bfloat16"), a, b, out_dtype="bfloat16")
    expected = ((a.astype("float32") * b.astype("float32")).astype(BF16).astype("float32") + a.astype("float32")).astype(BF16)
    np.testing.assert_array_equal(out.view("uint16"), expected.view("uint16"))


def test_bfloat16_conversions_round_to_nearest_even():
    x = np.array([1.0, 1.00390625, 1.01171875, -3.3, 1e30, np.inf, -np.inf, 0.0], "float32")
    to_bf = run(elementwise(lambda v: Cast(DataType("bfloat16"), v), ["float32"], "bfloat16"), x, out_dtype="bfloat16")
    np.testing.assert_array_equal(to_bf.view("uint16"), x.astype(BF16).view("uint16"))
    back = run(elementwise(lambda v: Cast(DataType("float32"), v), ["bfloat16"], "float32"), to_bf, out_dtype="float32")
    np.testing.assert_array_equal(back, to_bf.astype("float32"))
    nan = run(elementwise(lambda v: Cast(DataType("bfloat16"), v), ["float32"], "bfloat16"),
              np.array([np.nan], "float32"), out_dtype="bfloat16")
    assert np.isnan(nan.astype("float32")[0])


CASTS = [
    ("float32", "int32", np.array([-2.7, -0.5, 0.0, 2.5, 3.9, 1e6], "float32")),
    ("float64", "uint8", np.array([0.0, 1.9, 200.7, 255.0], "float64")),
    ("float32", "int64", np.array([-1e10, 1e10, -7.99], "float32")),
    ("int32", "float32", np.array([-5, 0, 7, 2**24 + 1], "int32")),
    ("uint32", "float64", np.array([0, 2**31, 2**32 - 1], "uint32")),
    ("int64", "int8", np.array([-129, 128, 255, -1, 2**40 + 3], "int64")),
    ("int8", "int64", np.array([-128, -1, 0, 127], "int8")),
    ("uint8", "int32", np.array([0, 128, 255], "uint8")),
    ("int32", "uint16", np.array([-1, 65536 + 5, 3], "int32")),
    ("float32", "float16", np.array([1.1, -65504.0, 1e-8, 70000.0], "float32")),
    ("float16", "float64", np.array([1.5, -2.25, 65504], "float16")),
    ("float64", "float32", np.array([1.0 / 3.0, 1e300], "float64")),
    ("bool", "float32", np.array([True, False])),
    ("bool", "int32", np.array([True, False])),
    ("float32", "bool", np.array([0.0, -0.0, 0.5, np.nan], "float32")),
    ("int16", "bool", np.array([0, 3, -1], "int16")),
]


@pytest.mark.parametrize(("src", "dst", "values"), CASTS, ids=[f"{s}->{d}" for s, d, _ in CASTS])
def test_casts_follow_c_semantics(src, dst, values):
    out = run(elementwise(lambda v: Cast(DataType(dst), v), [src], dst), values, out_dtype=dst)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = values.astype(dst)
    np.testing.assert_array_equal(out, expected)

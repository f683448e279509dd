"""topi unary elementwise operators, cast, clip and fills."""

import math

import numpy as np
import pytest
from topi_eval import evaluate, rand

from ember import te, topi

_erf = np.vectorize(math.erf)
UNARY = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "erf": _erf, "floor": np.floor, "ceil": np.ceil,
    "round": np.rint, "trunc": np.trunc, "abs": np.abs, "negative": np.negative, "sin": np.sin,
    "cos": np.cos, "log2": np.log2, "log10": np.log10, "exp2": np.exp2, "sign": np.sign,
    "atan": np.arctan, "log1p": np.log1p, "expm1": np.expm1,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_math(name):
    A = te.placeholder((2, 5), name="A")
    B = getattr(topi, name)(A)
    assert B.op.name == f"T_{name}"
    a = rand(2, 5, low=0.1, high=3.0)
    np.testing.assert_allclose(evaluate([A], B, [a]), UNARY[name](a).astype("float32"), rtol=1e-5, atol=1e-6)


def test_float64_unary():
    A = te.placeholder((4,), name="A", dtype="float64")
    a = rand(4, dtype="float64", low=0.1)
    np.testing.assert_allclose(evaluate([A], topi.exp(A), [a]), np.exp(a), rtol=1e-12)


def test_isnan_isinf():
    A = te.placeholder((4,), name="A")
    a = np.array([1.0, np.nan, np.inf, -np.inf], "float32")
    nan, inf, fin = evaluate([A], [topi.isnan(A), topi.isinf(A), topi.isfinite(A)], [a])
    np.testing.assert_array_equal(nan, np.isnan(a))
    np.testing.assert_array_equal(inf, np.isinf(a))
    np.testing.assert_array_equal(fin, np.isfinite(a))


def test_math_on_integers_is_an_error():
    A = te.placeholder((4,), name="A", dtype="int32")
    with pytest.raises(TypeError, match="needs a float argument, got int32"):
        topi.exp(A)


def test_integer_abs_and_negative():
    A = te.placeholder((4,), name="A", dtype="int32")
    a = np.array([-3, 0, 2, -1], "int32")
    r = evaluate([A], [topi.abs(A), topi.negative(A), topi.sign(A)], [a])
    np.testing.assert_array_equal(r[0], np.abs(a))
    np.testing.assert_array_equal(r[1], -a)
    np.testing.assert_array_equal(r[2], np.sign(a))


def test_clip_and_cast():
    A = te.placeholder((5,), name="A")
    a = np.array([-2.5, -0.5, 0.5, 1.7, 3.0], "float32")
    clipped, as_int, as_bool, as_half = evaluate(
        [A], [topi.clip(A, -1.0, 1.0), topi.cast(A, "int32"), topi.cast(A, "bool"), topi.cast(A, "float16")], [a])
    np.testing.assert_array_equal(clipped, np.clip(a, -1, 1))
    np.testing.assert_array_equal(as_int, a.astype("int32"))
    np.testing.assert_array_equal(as_bool, a != 0)
    np.testing.assert_array_equal(as_half, a.astype("float16"))


def test_full_and_like():
    A = te.placeholder((2, 3), name="A", dtype="int32")
    F = topi.full((2, 2), "float32", 1.5)
    L = topi.full_like(A, 7)
    f, lk = evaluate([A], [F, L], [np.zeros((2, 3), "int32")])
    np.testing.assert_array_equal(f, np.full((2, 2), 1.5))
    np.testing.assert_array_equal(lk, np.full((2, 3), 7))


def test_float16_storage():
    A = te.placeholder((4,), name="A", dtype="float16")
    B = topi.add(topi.exp(A), A)
    a = rand(4, dtype="float16")
    np.testing.assert_allclose(evaluate([A], B, [a]), np.exp(a) + a, rtol=2e-3)

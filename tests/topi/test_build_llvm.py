"""te/topi PrimFuncs compiled with ``ember.build(target="llvm")`` agree with numpy and
with the reference interpreter."""

import math

import numpy as np
import pytest
from nn_ref import conv_nd
from topi_eval import evaluate, rand

from ember import te, topi

ember = pytest.importorskip("ember")
try:
    from ember.driver import build as _build  # noqa: F401
    import ember.codegen.llvm  # noqa: F401
except ImportError:  # pragma: no cover - until the LLVM backend lands
    pytest.skip("ember.build (llvm) is not available", allow_module_level=True)


def both(inputs, outputs, arrays):
    """Run on llvm and the interpreter; check they agree; return the llvm result."""
    got = evaluate(inputs, outputs, arrays, backend="llvm")
    ref = evaluate(inputs, outputs, arrays, backend="interp")
    for g, r in zip(got if isinstance(got, list) else [got], ref if isinstance(ref, list) else [ref]):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    return got


def test_matmul_reduce_axis():
    A = te.placeholder((8, 6), name="A")
    B = te.placeholder((6, 5), name="B")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((8, 5), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    a, b = rand(8, 6), rand(6, 5, seed=1)
    np.testing.assert_allclose(both([A, B], C, [a, b]), a @ b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax(dtype):
    A = te.placeholder((3, 7), name="A", dtype=dtype)
    a = rand(3, 7, dtype=dtype, low=-3, high=3)
    e = np.exp(a - a.max(1, keepdims=True))
    np.testing.assert_allclose(both([A], topi.nn.softmax(A), [a]), e / e.sum(1, keepdims=True), rtol=1e-5)


def test_conv2d_direct():
    X = te.placeholder((1, 3, 6, 6), name="X")
    W = te.placeholder((4, 3, 3, 3), name="W")
    x, w = rand(1, 3, 6, 6), rand(4, 3, 3, 3, seed=2)
    got = both([X, W], topi.nn.conv2d(X, W, 2, 1, 1), [x, w])
    np.testing.assert_allclose(got, conv_nd(x, w, (2, 2), (1, 1), (1, 1), (1, 1)), rtol=1e-4, atol=1e-5)


def test_broadcasting_and_reductions():
    A = te.placeholder((4, 1, 3), name="A")
    B = te.placeholder((5, 3), name="B")
    a, b = rand(4, 1, 3), rand(5, 3, seed=3)
    C = topi.add(A, B)
    s, mx, mn = both([A, B], [C, topi.max(C, axis=1), topi.min(C, axis=(0, 2))], [a, b])
    np.testing.assert_allclose(s, a + b, rtol=1e-6)
    np.testing.assert_allclose(mx, (a + b).max(1), rtol=1e-6)
    np.testing.assert_allclose(mn, (a + b).min((0, 2)), rtol=1e-6)


def test_if_then_else_padding():
    X = te.placeholder((3, 4), name="X")
    x = rand(3, 4)
    got = both([X], topi.nn.pad(X, (1, 2), (2, 1), pad_value=-1.0), [x])
    np.testing.assert_array_equal(got, np.pad(x, ((1, 2), (2, 1)), constant_values=-1.0))


_erf = np.vectorize(math.erf)
MATH = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda v: 1 / np.sqrt(v), "tanh": np.tanh,
    "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "erf": _erf, "floor": np.floor, "ceil": np.ceil,
    "round": np.rint, "trunc": np.trunc, "abs": np.abs, "sin": np.sin, "cos": np.cos, "log2": np.log2,
    "log10": np.log10, "exp2": np.exp2, "atan": np.arctan, "log1p": np.log1p, "expm1": np.expm1,
    "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos,
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(MATH))
def test_math_intrinsic(name, dtype):
    A = te.placeholder((6,), name="A", dtype=dtype)
    low, high = (0.05, 0.95) if name in ("asin", "acos") else (0.1, 2.6)
    a = rand(6, dtype=dtype, low=low, high=high)
    a[0] = 0.5  # a half-way value for rounding
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(both([A], getattr(topi, name)(A), [a]), MATH[name](a), rtol=tol, atol=tol)


def test_binary_intrinsics():
    A = te.placeholder((5,), name="A")
    B = te.placeholder((5,), name="B")
    a, b = rand(5, low=0.5, high=2), rand(5, low=0.5, high=2, seed=7)
    pw, fm = both([A, B], [topi.power(A, B), te.compute((5,), lambda i: te.fmod(A[i], B[i]), name="F")], [a, b])
    np.testing.assert_allclose(pw, a**b, rtol=1e-5)
    np.testing.assert_allclose(fm, np.fmod(a, b), rtol=1e-5)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8"])
def test_integer_types(dtype):
    A = te.placeholder((6,), name="A", dtype=dtype)
    B = te.placeholder((6,), name="B", dtype=dtype)
    a = np.array([7, 100, 3, 9, 0, 120], dtype)
    b = np.array([2, 3, 5, 4, 1, 7], dtype)
    s, d, m, mx = both([A, B], [topi.add(A, B), topi.floor_divide(A, B), topi.floor_mod(A, B),
                               topi.maximum(A, B)], [a, b])
    np.testing.assert_array_equal(s, a + b)  # wraps like numpy
    np.testing.assert_array_equal(d, a // b)
    np.testing.assert_array_equal(m, a % b)
    np.testing.assert_array_equal(mx, np.maximum(a, b))


def test_float16_storage():
    A = te.placeholder((8,), name="A", dtype="float16")
    B = te.compute((8,), lambda i: A[i] * te.const(2.0, "float16") + te.const(1.0, "float16"), name="B")
    a = rand(8, dtype="float16")
    np.testing.assert_allclose(both([A], B, [a]), a * 2 + 1, rtol=1e-3)


def test_argmax_and_layer_norm():
    A = te.placeholder((4, 6), name="A")
    G = te.placeholder((6,), name="G")
    Bt = te.placeholder((6,), name="Bt")
    a, g, bt = rand(4, 6), rand(6, seed=1), rand(6, seed=2)
    am, ln = both([A, G, Bt], [topi.argmax(A, axis=1), topi.nn.layer_norm(A, G, Bt, -1)], [a, g, bt])
    np.testing.assert_array_equal(am, a.argmax(1))
    ref = (a - a.mean(1, keepdims=True)) / np.sqrt(a.var(1, keepdims=True) + 1e-5) * g + bt
    np.testing.assert_allclose(ln, ref, rtol=1e-4, atol=1e-5)

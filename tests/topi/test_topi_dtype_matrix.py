"""Every elementwise op and every cast, in every dtype the op accepts (float64, float32,
float16, bfloat16, int8…int64, uint8…uint64, bool), compiled for llvm and compared with
numpy (ml_dtypes for bfloat16).  Issue 15: float64 math and float16 casts used to fail.

One kernel per dtype computes every op (so a dtype costs one build); a failure lists
every op that disagrees.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import ember
from ember import te, topi

FLOATS = ["float64", "float32", "float16", "bfloat16"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
ALL = FLOATS + INTS + ["bool"]
N = 32


def np_dtype(dtype: str):
    return ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)


_erf = np.vectorize(math.erf, otypes=["float64"])
# op -> (numpy reference on float64 values, input range)
FLOAT_UNARY = {
    "exp": (np.exp, (-3, 3)), "exp2": (np.exp2, (-3, 3)), "expm1": (np.expm1, (-3, 3)),
    "log": (np.log, (0.1, 4)), "log2": (np.log2, (0.1, 4)), "log10": (np.log10, (0.1, 4)),
    "log1p": (np.log1p, (0.1, 4)), "sqrt": (np.sqrt, (0.1, 4)), "rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 4)),
    "sin": (np.sin, (-3, 3)), "cos": (np.cos, (-3, 3)), "tan": (np.tan, (-1, 1)),
    "sinh": (np.sinh, (-2, 2)), "cosh": (np.cosh, (-2, 2)), "tanh": (np.tanh, (-3, 3)),
    "asin": (np.arcsin, (-0.9, 0.9)), "acos": (np.arccos, (-0.9, 0.9)), "atan": (np.arctan, (-3, 3)),
    "asinh": (np.arcsinh, (-3, 3)), "acosh": (np.arccosh, (1.1, 4)), "atanh": (np.arctanh, (-0.9, 0.9)),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-4, 4)), "erf": (_erf, (-2, 2)),
    "floor": (np.floor, (-3, 3)), "ceil": (np.ceil, (-3, 3)), "trunc": (np.trunc, (-3, 3)),
    "round": (np.rint, (-3, 3)), "abs": (np.abs, (-3, 3)), "negative": (np.negative, (-3, 3)),
    "sign": (np.sign, (-3, 3)),
}
INT_UNARY = {
    "abs": lambda x: np.abs(x) if x.dtype.kind == "i" else x, "negative": np.negative,
    "sign": lambda x: np.sign(x).astype(x.dtype), "bitwise_not": np.invert,
    "logical_not": lambda x: x == 0,
}
TOLERANCE = {"float64": 1e-12, "float32": 2e-6, "float16": 2e-3, "bfloat16": 1.6e-2}


def _inputs(dtype: str, lo: float, hi: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(N) > 0.5
    if dtype in INTS:
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=N, endpoint=True).astype(dtype)
    return rng.uniform(lo, hi, size=N).astype(np_dtype(dtype))


def _run(inputs: list, outputs: list, arrays: list) -> list[np.ndarray]:
    func = te.create_prim_func([*inputs, *outputs])
    f = ember.build(func, target="llvm")
    outs = [ember.nd.array(np.zeros(N, dtype=np_dtype(str(o.dtype)))) for o in outputs]
    f(*[ember.nd.array(a) for a in arrays], *outs)
    return [o.numpy() for o in outs]


def _mismatches(results: dict, expected: dict, rtol: float, atol: float) -> list[str]:
    bad = []
    for name, got in results.items():
        ref = expected[name]
        g, r = got.astype("float64"), ref.astype("float64")
        if not np.allclose(g, r, rtol=rtol, atol=atol, equal_nan=True):
            k = int(np.argmax(~np.isclose(g, r, rtol=rtol, atol=atol, equal_nan=True)))
            bad.append(f"{name}: element {k} is {g[k]!r}, numpy says {r[k]!r}")
    return bad


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_unary_ops(dtype):
    arrays, inputs, outputs, expected = [], [], [], {}
    for name, (ref, (lo, hi)) in FLOAT_UNARY.items():
        A = te.placeholder((N,), dtype, name=f"A_{name}")
        a = _inputs(dtype, lo, hi, seed=len(arrays))
        inputs.append(A)
        arrays.append(a)
        outputs.append(getattr(topi, name)(A))
        expected[name] = ref(a.astype("float64")).astype(np_dtype(dtype))
    results = dict(zip(FLOAT_UNARY, _run(inputs, outputs, arrays)))
    tol = TOLERANCE[dtype]
    assert _mismatches(results, expected, tol, tol) == []


@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_integer_unary_ops(dtype):
    names = ["logical_not"] if dtype == "bool" else list(INT_UNARY)
    A = te.placeholder((N,), dtype, name="A")
    a = _inputs(dtype, 0, 0)
    results = dict(zip(names, _run([A], [getattr(topi, n)(A) for n in names], [a])))
    expected = {n: np.asarray(INT_UNARY[n](a)) for n in names}
    assert _mismatches(results, expected, 0, 0) == []


def _np_binary(dtype: str):
    int_like = dtype in INTS

    def fdiv(a, b):
        return np.floor_divide(a, b) if int_like else np.floor(a / b)

    def fmod(a, b):
        return np.mod(a, b) if int_like else a - np.floor(a / b) * b

    table = {
        "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
        "minimum": np.minimum, "floor_divide": fdiv, "floor_mod": fmod,
        "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
        "greater": np.greater, "greater_equal": np.greater_equal,
    }
    if not int_like:
        table["divide"] = np.divide
        table["power"] = np.power
    else:
        table.update(bitwise_and=np.bitwise_and, bitwise_or=np.bitwise_or, bitwise_xor=np.bitwise_xor)
    return table


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_binary_ops(dtype):
    table = _np_binary(dtype)
    A = te.placeholder((N,), dtype, name="A")
    B = te.placeholder((N,), dtype, name="B")
    a = _inputs(dtype, 0.5, 3, seed=1)
    b = _inputs(dtype, 0.5, 3, seed=2)
    if dtype in INTS:
        b = np.where(b == 0, 1, b).astype(dtype)  # no division by zero
    outputs = [getattr(topi, name)(A, B) for name in table]
    results = dict(zip(table, _run([A, B], outputs, [a, b])))
    with np.errstate(over="ignore"):
        expected = {}
        for name, ref in table.items():
            r = np.asarray(ref(a.astype("float64"), b.astype("float64")) if dtype in FLOATS else ref(a, b))
            expected[name] = r.astype(np_dtype(dtype)) if r.dtype != bool else r
    tol = TOLERANCE.get(dtype, 0)
    assert _mismatches(results, expected, tol, tol) == []


def _cast_inputs(src: str, dst: str) -> np.ndarray:
    """Values every cast from ``src`` to ``dst`` defines (float -> int is only defined in range)."""
    if src == "bool" or dst == "bool" and src not in FLOATS:
        return _inputs(src, -3, 3, seed=3)
    if src in FLOATS and dst in INTS:
        info = np.iinfo(dst)
        lo, hi = max(info.min, -100), min(info.max, 100)
        return np.random.default_rng(4).uniform(lo, hi, N).astype(np_dtype(src))
    return _inputs(src, -1000, 1000, seed=5)


@pytest.mark.parametrize("src", ALL)
def test_casts_from(src):
    dsts = [d for d in ALL if d != src]
    a = _cast_inputs(src, "int8")
    A = te.placeholder((N,), src, name="A")
    results = dict(zip(dsts, _run([A], [topi.cast(A, d) for d in dsts], [a])))
    bad = []
    for dst in dsts:
        expected = a.astype(np_dtype(dst))
        if src in FLOATS and dst in INTS and dst.startswith("uint"):
            continue  # negative floats to unsigned are undefined; covered below
        bad += _mismatches({dst: results[dst]}, {dst: expected}, 0, 0)
    assert bad == []


@pytest.mark.parametrize("src", FLOATS)
@pytest.mark.parametrize("dst", ["uint8", "uint16", "uint32", "uint64"])
def test_float_to_unsigned_casts(src, dst):
    a = np.abs(_cast_inputs(src, "int8"))
    A = te.placeholder((N,), src, name="A")
    (got,) = _run([A], [topi.cast(A, dst)], [a])
    np.testing.assert_array_equal(got, a.astype(dst))


def test_float64_to_float16_rounds_once():
    x = np.array([1 + 2**-11 + 2**-40] * N)  # just above a float16 halfway point
    A = te.placeholder((N,), "float64", name="A")
    (got,) = _run([A], [topi.cast(A, "float16")], [x])
    np.testing.assert_array_equal(got, x.astype("float16"))

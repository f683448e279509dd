"""Fuzz Relax: random elementwise graphs in every dtype the ops accept, against numpy.

A case draws a dtype (float64/32/16, bfloat16, int8…uint64, bool), one or two inputs
(the second sometimes broadcast), and a chain of 1–5 ops that accept that dtype; it
builds the graph with ``relax.build`` and runs it on the VM.  The result must match the
same chain evaluated by numpy (each op rounded to the dtype, ml_dtypes for bfloat16).
"""

from __future__ import annotations

import math
import random

import ml_dtypes
import numpy as np

import ember
from ember import relax
from ember.relax import op as R

FLOATS = ["float64", "float32", "float16", "bfloat16"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
TOL = {"float64": 1e-9, "float32": 1e-4, "float16": 2e-2, "bfloat16": 8e-2}
_erf = np.vectorize(math.erf, otypes=["float64"])

# name -> numpy on float64 values; inputs are kept in ranges where every op is defined
FLOAT_UNARY = {
    "exp": lambda x: np.exp(np.clip(x, -5, 5)), "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "sin": np.sin, "cos": np.cos, "erf": _erf, "abs": np.abs, "negative": np.negative, "floor": np.floor,
    "ceil": np.ceil, "sqrt_abs": lambda x: np.sqrt(np.abs(x)), "log_1p_abs": lambda x: np.log1p(np.abs(x)),
    "atan": np.arctan, "square": np.square, "sign": np.sign,
}
BINARY_ANY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
              "minimum": np.minimum}
INT_UNARY = {"abs": None, "negative": np.negative, "bitwise_not": np.invert}
INT_BINARY = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
              "floor_divide_nz": None, "floor_mod_nz": None}
BOOL_OPS = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
            "logical_not": np.logical_not, "equal": np.equal}


def np_dtype(dtype):
    return ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)


def _relax_unary(name, x):
    if name == "sqrt_abs":
        return R.sqrt(R.abs(x))
    if name == "log_1p_abs":
        return R.log1p(R.abs(x))
    if name == "exp":
        return R.exp(R.clip(x, -5, 5))
    return getattr(R, name)(x)


def _data(dtype, shape, rng):
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype in INTS:
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -60), min(info.max, 60), size=shape, endpoint=True).astype(dtype)
    return rng.uniform(-2, 2, size=shape).astype(np_dtype(dtype))


def _round(value, dtype):
    return np.asarray(value).astype(np_dtype(dtype))


def _int_binary(name, a, b, dtype):
    if name.startswith("floor_divide"):
        return R.floor_divide(a, b), lambda x, y: np.floor_divide(x, y)
    if name.startswith("floor_mod"):
        return R.floor_mod(a, b), lambda x, y: np.mod(x, y)
    return getattr(R, name)(a, b), INT_BINARY[name]


def build_case(seed: int):
    """(relax module, numpy inputs, numpy expected, description)."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    dtype = rng.choice(FLOATS + INTS + ["bool"])
    shape = tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 3)))
    other_shape = shape if rng.random() < 0.6 else shape[-1:]
    x_np, y_np = _data(dtype, shape, nrng), _data(dtype, other_shape, nrng)
    if dtype in INTS:
        y_np = np.where(y_np == 0, 1, y_np).astype(dtype)  # divisors stay nonzero
    x = relax.Var("x", relax.TensorStructInfo(shape, dtype))
    y = relax.Var("y", relax.TensorStructInfo(other_shape, dtype))
    bb = relax.BlockBuilder()
    steps = []
    with bb.function("main", [x, y]):
        with bb.dataflow():
            cur, ref = x, x_np
            for _ in range(rng.randint(1, 5)):
                if dtype in FLOATS:
                    if rng.random() < 0.5:
                        name = rng.choice(sorted(FLOAT_UNARY))
                        expr, val = _relax_unary(name, cur), FLOAT_UNARY[name](ref.astype("float64"))
                    else:
                        name = rng.choice(sorted(BINARY_ANY))
                        expr, val = getattr(R, name)(cur, y), BINARY_ANY[name](ref.astype("float64"), y_np.astype("float64"))
                elif dtype in INTS:
                    name = rng.choice(sorted(INT_UNARY) + sorted(INT_BINARY) + sorted(BINARY_ANY))
                    if name in INT_UNARY:
                        expr = getattr(R, name)(cur)
                        val = (np.abs(ref) if dtype.startswith("int") else ref) if name == "abs" else INT_UNARY[name](ref)
                    elif name in INT_BINARY:
                        expr, fn = _int_binary(name, cur, y, dtype)
                        val = fn(ref, y_np)
                    else:
                        expr, val = getattr(R, name)(cur, y), BINARY_ANY[name](ref, y_np)
                else:
                    name = rng.choice(sorted(BOOL_OPS))
                    expr = getattr(R, name)(cur) if name == "logical_not" else getattr(R, name)(cur, y)
                    val = BOOL_OPS[name](ref) if name == "logical_not" else BOOL_OPS[name](ref, y_np)
                steps.append(name)
                with np.errstate(all="ignore"):
                    ref = _round(val, dtype)
                cur = bb.emit(expr)
            out = bb.emit_output(cur)
        bb.emit_func_output(out)
    return bb.get(), [x_np, y_np], ref, f"{dtype} {shape}/{other_shape}: {' -> '.join(steps)}"


def run_case(seed: int) -> str | None:
    mod, inputs, expected, label = build_case(seed)
    try:
        ex = relax.build(mod, "llvm")
    except Exception as err:  # noqa: BLE001 - every op here accepts the dtype
        return f"{label}: build failed: {type(err).__name__}: {str(err)[:300]}"
    vm = relax.VirtualMachine(ex, ember.cpu())
    got = vm["main"](*[ember.nd.array(a) for a in inputs]).numpy()
    dtype = str(inputs[0].dtype)
    if got.shape != expected.shape or str(got.dtype) != dtype:
        return f"{label}: got {got.dtype}{got.shape}, expected {expected.dtype}{expected.shape}"
    tol = TOL.get(dtype, 0)
    # float16/bfloat16: ops compute in float32 and round once; numpy rounds float64 results
    if not np.allclose(got.astype("float64"), expected.astype("float64"), rtol=tol, atol=tol, equal_nan=True):
        bad = np.argmax(~np.isclose(got.astype("float64"), expected.astype("float64"), rtol=tol, atol=tol,
                                    equal_nan=True))
        return (f"{label}: wrong result at flat index {bad}: {got.reshape(-1)[bad]!r} vs numpy "
                f"{expected.reshape(-1)[bad]!r}")
    return None

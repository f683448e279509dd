"""Fuzz compiled-function calls with bad arguments.

Each case takes one of a few compiled kernels and calls it with arguments mutated from
good ones (wrong count, dtype, ndim, shape, layout, read-only outputs, NaN, huge or
negative scalars, foreign objects …).  A call must either raise a clear error (an
``ArgumentError`` or another ``TypeError`` / ``ValueError`` / ``MemoryError`` /
``OverflowError`` whose message names the argument) or, when the arguments are in fact
valid, compute what numpy computes.  A crash, another exception type, or a result on
invalid arguments is a failure.
"""

from __future__ import annotations

import functools
import random

import numpy as np

import ember
from ember import te

ALLOWED = (TypeError, ValueError, MemoryError, OverflowError, BufferError)




@functools.cache
def kernels() -> dict:
    n = te.var("n")
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    add_one = ember.build(te.create_prim_func([A, B]), target="llvm")

    X = te.placeholder((3, 4), "int32", name="X")
    Y = te.placeholder((3, 4), "int32", name="Y")
    Z = te.compute((3, 4), lambda i, j: X[i, j] * Y[i, j], name="Z")
    mul2d = ember.build(te.create_prim_func([X, Y, Z]), target="llvm")

    m = te.var("m")
    s = te.var("s", "int64")
    U = te.placeholder((m,), "uint8", name="U")
    V = te.compute((m,), lambda i: U[i] + s.astype("uint8"), name="V")
    shift = ember.build(te.create_prim_func([U, V, m, s]), target="llvm")

    k = te.var("k")
    P = te.placeholder((k,), "float64", name="P")
    T = te.compute((k, k), lambda i, j: P[i] * P[j], name="T")
    r = te.reduce_axis((0, k), "r")
    Q = te.compute((k,), lambda i: te.sum(T[i, r], axis=r), name="Q")
    outer = ember.build(te.create_prim_func([P, Q]), target="llvm")
    return {
        "add_one": (add_one, _good_add_one, lambda a: [a[0] + 1]),
        "mul2d": (mul2d, _good_mul2d, lambda a: [a[0] * a[1]]),
        "shift": (shift, _good_shift, lambda a: [(a[0].astype("int64") + a[3]).astype("uint8")]),
        "outer": (outer, _good_outer, lambda a: [a[0] * a[0].sum()]),
    }


def _good_add_one(rng):
    n = int(rng.integers(0, 9))
    return [rng.standard_normal(n).astype("float32"), np.zeros(n, "float32")], [1]


def _good_mul2d(rng):
    return [rng.integers(-50, 50, (3, 4)).astype("int32"), rng.integers(-50, 50, (3, 4)).astype("int32"),
            np.zeros((3, 4), "int32")], [2]


def _good_shift(rng):
    m = int(rng.integers(0, 9))
    return [rng.integers(0, 255, m).astype("uint8"), np.zeros(m, "uint8"), m, int(rng.integers(0, 9))], [1]


def _good_outer(rng):
    k = int(rng.integers(0, 9))
    return [rng.standard_normal(k), np.zeros(k)], [1]


def _mutate(args: list, rng: random.Random, nrng) -> tuple[list, str]:
    """Apply one mutation; returns (args, what was done)."""
    if not args:
        return [np.zeros(1, "float32")], "an argument added to none"
    i = rng.randrange(len(args))
    a = args[i]
    kinds = ["count+", "count-", "none", "list", "str", "scalar_for_array", "array_for_scalar"]
    if isinstance(a, np.ndarray):
        kinds += ["dtype", "ndim+", "ndim-", "shape", "strided", "fortran", "readonly", "misaligned",
                  "nan", "ndarray", "zero_size", "bool", "huge_shape_view"]
    else:
        kinds += ["huge", "negative", "float", "npint", "nan_scalar", "bool_scalar", "int64_max"]
    kind = rng.choice(kinds)
    args = list(args)
    if kind == "count+":
        args.append(args[-1])
    elif kind == "count-":
        args.pop()
    elif kind == "none":
        args[i] = None
    elif kind == "list":
        args[i] = a.tolist() if isinstance(a, np.ndarray) else [a]
    elif kind == "str":
        args[i] = "x"
    elif kind == "scalar_for_array":
        args[i] = 3
    elif kind == "array_for_scalar":
        args[i] = np.zeros(2, "float32")
    elif kind == "dtype":
        args[i] = a.astype(rng.choice(["float16", "float64", "int8", "int64", "uint32", "bool", "complex64"]))
    elif kind == "ndim+":
        args[i] = a[None]
    elif kind == "ndim-":
        args[i] = a.reshape(-1)[0] if a.ndim <= 1 and a.size else a.reshape(-1)
    elif kind == "shape":
        args[i] = np.zeros(tuple(max(0, d + rng.choice([-1, 1, 5])) for d in a.shape), a.dtype)
    elif kind == "strided":
        big = np.zeros(tuple(d * 2 for d in a.shape), a.dtype)
        args[i] = big[tuple(slice(None, None, 2) for _ in a.shape)]
    elif kind == "fortran":
        args[i] = np.asfortranarray(a) if a.ndim > 1 else a.T
    elif kind == "readonly":
        a = a.copy()
        a.flags.writeable = False
        args[i] = a
    elif kind == "misaligned":
        raw = np.zeros(a.nbytes + 1, "uint8")[1:]  # an address off by one byte
        args[i] = np.ndarray(a.shape, a.dtype, buffer=raw.data)
    elif kind == "nan":
        if a.dtype.kind == "f" and a.size:
            a = a.copy()
            a.reshape(-1)[0] = np.nan
        args[i] = a
    elif kind == "ndarray":
        args[i] = ember.nd.array(a) if a.dtype.kind in "biuf" else a
    elif kind == "zero_size":
        args[i] = np.zeros((0,) * max(a.ndim, 1), a.dtype)
    elif kind == "bool":
        args[i] = a.astype(bool)
    elif kind == "huge_shape_view":
        args[i] = np.broadcast_to(np.zeros(1, a.dtype), (1 << 20,) + a.shape[1:]) if a.ndim else a
    elif kind == "huge":
        args[i] = 1 << rng.choice([31, 32, 40, 63, 64, 70])
    elif kind == "negative":
        args[i] = -int(nrng.integers(1, 1 << 40))
    elif kind == "float":
        args[i] = 2.5
    elif kind == "npint":
        if isinstance(a, int) and -(1 << 63) <= a < 1 << 63:
            args[i] = np.int8(a) if -128 <= a < 128 else np.int64(a)
    elif kind == "nan_scalar":
        args[i] = float("nan")
    elif kind == "bool_scalar":
        args[i] = True
    elif kind == "int64_max":
        args[i] = (1 << 63) - 1
    return args, f"{kind} on argument #{i + 1}"


def _valid(func, args) -> bool:
    """Whether ``args`` are valid for ``func`` by the documented rules (checked in Python)."""
    info = func.info
    if len(args) != len(info.params):
        return False
    dims: dict = {}
    for p, a in zip(info.params, args):
        if p.kind == "buffer":
            if isinstance(a, ember.nd.NDArray):
                a = a.numpy() if a.is_contiguous else None
            if not isinstance(a, np.ndarray) or str(a.dtype) != p.dtype or a.ndim != len(p.shape):
                return False
            if not a.flags.c_contiguous and a.size > 1 or p.written and not a.flags.writeable:
                return False
            for d, got in zip(p.shape, a.shape):
                if isinstance(d, int) and d != got or isinstance(d, str) and dims.setdefault(d, got) != got:
                    return False
        else:
            if not isinstance(a, int | np.integer):  # (bool is an int: True is 1)
                return False
            bits = int(p.dtype.removeprefix("u").removeprefix("int"))
            lo, hi = (0, (1 << bits) - 1) if p.dtype.startswith("u") else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            if not lo <= int(a) <= hi or dims.setdefault(p.name, int(a)) != int(a):
                return False
    return True


def _as_numpy(a):
    return a.numpy() if isinstance(a, ember.nd.NDArray) else a


def run_case(seed: int) -> str | None:
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    name = rng.choice(sorted(kernels()))
    func, good, reference = kernels()[name]
    func = func.get_function(func.function_names[0]) if hasattr(func, "function_names") else func
    args, out_positions = good(nrng)
    what = []
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
        args, done = _mutate(args, rng, nrng)
        what.append(done)
    label = f"{name} with {', '.join(what) or 'good arguments'}"
    valid = _valid(func, args)
    inputs = [_as_numpy(a).copy() if isinstance(_as_numpy(a), np.ndarray) else a for a in args]
    try:
        func(*args)
    except ALLOWED as err:
        if valid:
            return f"{label}: valid arguments refused: {type(err).__name__}: {err}"
        if not str(err).strip():
            return f"{label}: {type(err).__name__} without a message"
        return None
    except Exception as err:  # noqa: BLE001 - any other exception is an internal error
        return f"{label}: internal error {type(err).__name__}: {err}"
    if not valid:
        return f"{label}: invalid arguments accepted silently"
    expected = reference(inputs)
    for pos, exp in zip(out_positions, expected):
        got = _as_numpy(args[pos])
        if not np.allclose(got, exp, rtol=1e-5, atol=1e-6, equal_nan=True):
            return f"{label}: wrong result {got!r}, expected {exp!r}"
    return None

"""Fuzz index-driven ops: indices from data, in range or not, must never crash a kernel.

A case draws one of ``take``, ``gather_elements``, ``gather_nd``, ``scatter_elements``,
``scatter_nd`` (Relax ops, built with ``relax.build`` and run on the VM), a random data
shape and dtype, an index dtype (int32/int64) and index values: in range, or (in about
half the cases) with some values out of range (the extent, -extent - 1, ±2**31, ±2**40).
With every index in range the result must match numpy; with an index out of range the
call must return (out-of-range loads are clamped, out-of-range stores dropped) or raise
a Python error, never end the process.  Negative in-range indices are not drawn (their
meaning differs between the ops' modes).
"""

from __future__ import annotations

import random

import numpy as np

import ember
from ember import relax
from ember.relax import op as R

OPS = ("take", "gather_elements", "gather_nd", "scatter_elements", "scatter_nd")
DTYPES = ("float32", "float64", "int32", "int8")


def _bad_values(extent: int, dtype: str) -> list[int]:
    values = [extent, -extent - 1, extent + 7, (1 << 31) - 1, -(1 << 31)]
    if dtype == "int64":
        values += [1 << 40, -(1 << 40), (1 << 63) - 1, -(1 << 63)]
    return values


def _indices(rng: random.Random, shape, extents, dtype: str, hostile: bool) -> tuple[np.ndarray, bool]:
    """Index values of ``shape`` whose last-axis entry k (or every entry, one extent) is in
    ``range(extents[k])``; with ``hostile``, some entries are out of range.  Returns
    (indices, whether every entry is in range)."""
    flat = int(np.prod(shape))
    values, ok = [], True
    for n in range(flat):
        extent = extents[n % len(extents)]
        if hostile and rng.random() < 0.3:
            values.append(rng.choice(_bad_values(extent, dtype)))
            ok = False
        else:
            values.append(rng.randrange(extent))
    return np.array(values, dtype=dtype).reshape(shape), ok


def _data(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    if dtype.startswith("int"):
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def build_case(seed: int):
    """(relax module, numpy inputs, numpy expected or None when indices are out of range, label)."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    op = rng.choice(OPS)
    dtype = rng.choice(DTYPES)
    index_dtype = rng.choice(["int32", "int64"])
    hostile = rng.random() < 0.5
    shape = tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 3)))
    data = _data(nrng, shape, dtype)
    axis = rng.randrange(len(shape))
    updates = None
    if op == "take":
        ind, ok = _indices(rng, (rng.randint(1, 4),), [shape[axis]], index_dtype, hostile)
        expected = np.take(data, ind, axis=axis) if ok else None
        make = lambda d, i, u: R.take(d, i, axis=axis)  # noqa: E731
    elif op in ("gather_elements", "scatter_elements"):
        ishape = tuple(rng.randint(1, s) for s in shape)
        ind, ok = _indices(rng, ishape, [shape[axis]], index_dtype, hostile)
        if op == "gather_elements":
            expected = None
            if ok:  # ONNX GatherElements: the output has the indices' shape (no broadcasting)
                expected = np.empty(ishape, dtype)
                for pos in np.ndindex(*ishape):
                    source = list(pos)
                    source[axis] = int(ind[pos])
                    expected[pos] = data[tuple(source)]
            make = lambda d, i, u: R.gather_elements(d, i, axis=axis)  # noqa: E731
        else:
            updates = _data(nrng, ishape, dtype)
            expected = None
            if ok:
                expected = data.copy()
                for pos in np.ndindex(*ishape):  # in order: the last write to a position wins
                    target = list(pos)
                    target[axis] = int(ind[pos])
                    expected[tuple(target)] = updates[pos]
            make = lambda d, i, u: R.scatter_elements(d, i, u, axis=axis)  # noqa: E731
    else:
        m = rng.randint(1, len(shape))
        batch = tuple(rng.randint(1, 3) for _ in range(rng.randint(1, 2)))
        ind, ok = _indices(rng, batch + (m,), list(shape[:m]), index_dtype, hostile)
        if op == "gather_nd":
            expected = np.stack([data[tuple(ind[b])] for b in np.ndindex(*batch)]).reshape(
                batch + shape[m:]) if ok else None
            make = lambda d, i, u: R.gather_nd(d, i)  # noqa: E731
        else:
            updates = _data(nrng, batch + shape[m:], dtype)
            expected = None
            if ok:
                expected = data.copy()
                for b in np.ndindex(*batch):
                    expected[tuple(ind[b])] = updates[b]
            make = lambda d, i, u: R.scatter_nd(d, i, u)  # noqa: E731
    params = [relax.Var("data", relax.TensorStructInfo(shape, dtype)),
              relax.Var("indices", relax.TensorStructInfo(ind.shape, index_dtype))]
    inputs = [data, ind]
    if updates is not None:
        params.append(relax.Var("updates", relax.TensorStructInfo(updates.shape, dtype)))
        inputs.append(updates)
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        out = bb.emit(make(*params, *([None] if updates is None else [])))
        bb.emit_func_output(out)
    label = f"{op} {dtype}{shape} axis={axis} indices {index_dtype}{ind.shape}={ind.reshape(-1).tolist()}"
    return bb.get(), inputs, expected, label


def run_case(seed: int) -> str | None:
    mod, inputs, expected, label = build_case(seed)
    try:
        ex = relax.build(mod, "llvm")
    except Exception as err:  # noqa: BLE001 - every case here is a valid graph
        return f"{label}: build failed: {type(err).__name__}: {str(err)[:300]}"
    vm = relax.VirtualMachine(ex, ember.cpu())
    try:
        got = vm["main"](*[ember.nd.array(a) for a in inputs]).numpy()
    except Exception as err:  # noqa: BLE001
        if expected is None:
            return None  # out-of-range indices may be refused with a Python error
        return f"{label}: in-range indices raised {type(err).__name__}: {str(err)[:300]}"
    if expected is None:
        return None  # out of range: any value, as long as the process lives
    if got.shape != expected.shape or not np.array_equal(got, expected):
        return f"{label}: got {got.reshape(-1).tolist()[:8]}, numpy {expected.reshape(-1).tolist()[:8]}"
    return None

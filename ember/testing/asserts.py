"""``assert_allclose`` for NDArrays, numpy arrays, torch tensors, DLPack objects and lists;
``assert_prim_expr_equal`` for scalar expressions that must be provably equal."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime.ndarray import NDArray, from_dlpack


def to_numpy(value: Any) -> np.ndarray:
    """A numpy array with the contents of ``value`` (copying from devices when needed)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, NDArray):
        return value.numpy()
    if hasattr(value, "__dlpack__") and not np.isscalar(value):
        try:
            return from_dlpack(value).numpy()
        except (BufferError, RuntimeError, TypeError):
            pass  # e.g. torch tensors that require grad: fall back to numpy's conversion
    if hasattr(value, "detach"):
        value = value.detach().cpu()
    return np.asarray(value)


def assert_allclose(
    actual: Any, desired: Any, rtol: float = 1e-7, atol: float = 0, verbose: bool = True
) -> None:
    """Raise AssertionError unless ``actual`` and ``desired`` have the same shape and are close."""
    actual, desired = to_numpy(actual), to_numpy(desired)
    if actual.shape != desired.shape:
        raise AssertionError(
            f"assert_allclose: shape mismatch: actual {actual.shape}, desired {desired.shape}"
        )
    np.testing.assert_allclose(
        _comparable(actual), _comparable(desired), rtol=rtol, atol=atol, verbose=verbose
    )


def _comparable(arr: np.ndarray) -> np.ndarray:
    """numpy cannot compare bfloat16 and friends directly: widen them to float32."""
    if arr.dtype.kind == "V" or arr.dtype.name == "bfloat16":
        return arr.astype(np.float32)
    return arr


def assert_prim_expr_equal(lhs, rhs) -> None:
    """Raise ValueError unless the analyzer proves ``lhs == rhs`` (ints and PrimExprs)."""
    from ..arith import Analyzer
    from ..ir.expr import IntImm, const

    def as_expr(v):
        return const(v, "int32") if isinstance(v, int) and not isinstance(v, bool) else v

    diff = Analyzer().simplify(as_expr(lhs) - as_expr(rhs))
    if not (isinstance(diff, IntImm) and diff.value == 0):
        raise ValueError(f"assert_prim_expr_equal: {lhs} and {rhs} are not provably equal "
                         f"(their difference simplifies to {diff})")

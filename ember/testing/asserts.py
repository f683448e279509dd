"""``assert_allclose`` for NDArrays, numpy arrays, torch tensors, DLPack objects and lists."""

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

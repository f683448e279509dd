"""Prefix scans along an axis: cumsum and cumprod, as reductions over ``k <= i``
(quadratic work, simple and correct; a scheduled scan can replace it later)."""

from __future__ import annotations

from ember import te
from ember.ir import DataType, const
from ember.tir import op as tir_op

from .utils import compute_ax, normalize_axis

__all__ = ["cumsum", "cumprod"]

_prod = te.comm_reducer(lambda x, y: x * y, lambda t: const(1, t), name="prod")


def _scan(data, axis, dtype, exclusive, reducer, name):
    if axis is None:
        from .transform import reshape
        from .utils import prod

        data = reshape(data, (prod(data.shape),))
        axis = 0
    (axis,) = normalize_axis(axis, data.ndim)
    dtype = DataType(dtype or data.dtype)
    k = te.reduce_axis((0, data.shape[axis]), name="k")

    def f(*idx):
        src = idx[:axis] + (k.var,) + idx[axis + 1:]
        cond = k.var < idx[axis] if exclusive else k.var <= idx[axis]
        return reducer(tir_op.cast(data(*src), dtype), axis=k, where=cond)

    return compute_ax(data.shape, f, name, tag="scan")


def cumsum(data, axis=None, dtype=None, exclusive: bool = False) -> te.Tensor:
    """Running sum along ``axis`` (of the flattened data when None)."""
    return _scan(data, axis, dtype, exclusive, te.sum, "T_cumsum")


def cumprod(data, axis=None, dtype=None, exclusive: bool = False) -> te.Tensor:
    """Running product along ``axis`` (of the flattened data when None)."""
    return _scan(data, axis, dtype, exclusive, _prod, "T_cumprod")

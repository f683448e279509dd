"""Reductions: sum, mean, max, min, prod, variance, std over axes (keepdims), argmax/argmin."""

from __future__ import annotations

from ember.ir import as_expr

from ..expr import Call
from ..struct_info import TensorStructInfo, shape_values
from ._infer import tensor
from .attrs import ArgReduceAttrs, StatisticalAttrs
from .base import make_call, normalize_axes, normalize_axis, register, tensor_arg

__all__ = ["sum", "mean", "max", "min", "prod", "variance", "std", "argmax", "argmin"]


def _reduce_shape(call, x: TensorStructInfo, axes, keepdims: bool, dtype) -> TensorStructInfo:
    if x.ndim == -1:
        return tensor(None, dtype, x.vdevice, -1 if (axes is not None or keepdims) else 0)
    red = list(range(x.ndim)) if axes is None else normalize_axes(call, axes, x.ndim)
    out_ndim = x.ndim if keepdims else x.ndim - len(red)
    values = shape_values(x)
    if values is None:
        return tensor(None, dtype, x.vdevice, out_ndim)
    one = as_expr(1, "int64")
    out = [(one if keepdims else None) if i in red else v for i, v in enumerate(values)]
    return tensor([v for v in out if v is not None], dtype, x.vdevice)


def _infer_stat(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    return _reduce_shape(call, x, call.attrs.axis, call.attrs.keepdims, x.dtype)


def _infer_arg(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    axis = call.attrs.axis
    if axis is not None and x.ndim != -1:
        normalize_axis(call, axis, x.ndim)
    return _reduce_shape(call, x, None if axis is None else (axis,), call.attrs.keepdims, "int64")


def _axes(axis):
    if axis is None:
        return None
    return (int(axis),) if isinstance(axis, int) else tuple(int(a) for a in axis)


def _stat(name: str, x, axis, keepdims: bool) -> Call:
    return make_call(name, [x], StatisticalAttrs(_axes(axis), bool(keepdims)))


for _n in ("sum", "mean", "max", "min", "prod", "variance", "std"):
    register(_n, _infer_stat, arg_names=("x",))


def sum(x, axis=None, keepdims: bool = False) -> Call:  # noqa: A001 - TVM's name
    """Sum over ``axis`` (all axes when None)."""
    return _stat("sum", x, axis, keepdims)


def mean(x, axis=None, keepdims: bool = False) -> Call:
    return _stat("mean", x, axis, keepdims)


def max(x, axis=None, keepdims: bool = False) -> Call:  # noqa: A001
    return _stat("max", x, axis, keepdims)


def min(x, axis=None, keepdims: bool = False) -> Call:  # noqa: A001
    return _stat("min", x, axis, keepdims)


def prod(x, axis=None, keepdims: bool = False) -> Call:
    return _stat("prod", x, axis, keepdims)


def variance(x, axis=None, keepdims: bool = False) -> Call:
    return _stat("variance", x, axis, keepdims)


def std(x, axis=None, keepdims: bool = False) -> Call:
    return _stat("std", x, axis, keepdims)


for _n in ("argmax", "argmin"):
    register(_n, _infer_arg, arg_names=("x",))


def argmax(x, axis: int | None = None, keepdims: bool = False) -> Call:
    """Index of the largest element along ``axis`` (of the flattened tensor when None)."""
    return make_call("argmax", [x], ArgReduceAttrs(axis, bool(keepdims)))


def argmin(x, axis: int | None = None, keepdims: bool = False) -> Call:
    """Index of the smallest element along ``axis`` (of the flattened tensor when None)."""
    return make_call("argmin", [x], ArgReduceAttrs(axis, bool(keepdims)))

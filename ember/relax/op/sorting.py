"""Sorting and scans: sort, argsort, topk, cumsum, cumprod."""

from __future__ import annotations

from ember.ir import DataType, as_expr

from ..expr import Call
from ..struct_info import TensorStructInfo, TupleStructInfo, shape_values
from ._infer import prod, same_checking_axis, tensor
from .attrs import ArgsortAttrs, ScanopAttrs, SortAttrs, TopKAttrs
from .base import make_call, normalize_axis, register, tensor_arg

__all__ = ["sort", "argsort", "topk", "cumsum", "cumprod"]


register("sort", same_checking_axis, arg_names=("x",))


def sort(x, axis: int = -1, descending: bool = False) -> Call:
    return make_call("sort", [x], SortAttrs(int(axis), bool(descending)))


def _infer_argsort(call: Call, ctx) -> TensorStructInfo:
    x = same_checking_axis(call, ctx)
    return TensorStructInfo(x.shape, call.attrs.dtype, x.vdevice, x.ndim)


register("argsort", _infer_argsort, arg_names=("data",))


def argsort(data, axis: int = -1, descending: bool = False, dtype="int32") -> Call:
    return make_call("argsort", [data], ArgsortAttrs(int(axis), bool(descending), DataType(dtype)))


def _infer_topk(call: Call, ctx):
    x = tensor_arg(call, 0)
    a = call.attrs
    if a.ret_type not in ("both", "values", "indices"):
        raise ValueError(f"relax.topk: ret_type must be 'both', 'values' or 'indices', got {a.ret_type!r}")
    values = shape_values(x)
    if values is None:
        vals = tensor(None, x.dtype, x.vdevice, x.ndim)
    else:
        axis = normalize_axis(call, a.axis, len(values))
        dims = list(values)
        dims[axis] = as_expr(a.k, "int64")
        vals = tensor(dims, x.dtype, x.vdevice)
    idx = TensorStructInfo(vals.shape, a.dtype, vals.vdevice, vals.ndim)
    return {"both": TupleStructInfo([vals, idx]), "values": vals, "indices": idx}[a.ret_type]


register("topk", _infer_topk, arg_names=("data",))


def topk(data, k: int = 1, axis: int = -1, ret_type: str = "both", largest: bool = True, dtype="int32") -> Call:
    """The ``k`` largest (or smallest) entries along ``axis``: values, indices or both."""
    return make_call("topk", [data], TopKAttrs(int(k), int(axis), ret_type, bool(largest), DataType(dtype)))


def _infer_scan(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    dtype = call.attrs.dtype or x.dtype
    if call.attrs.axis is None:
        values = shape_values(x)
        return tensor(None if values is None else [prod(values)], dtype, x.vdevice, 1)
    if x.ndim != -1:
        normalize_axis(call, call.attrs.axis, x.ndim)
    return TensorStructInfo(x.shape, dtype, x.vdevice, x.ndim)


register("cumsum", _infer_scan, arg_names=("data",))
register("cumprod", _infer_scan, arg_names=("data",))


def cumsum(data, axis: int | None = None, dtype=None, exclusive: bool = False) -> Call:
    """Running sum along ``axis`` (of the flattened tensor when None)."""
    return make_call("cumsum", [data], ScanopAttrs(axis, None if dtype is None else DataType(dtype), bool(exclusive)))


def cumprod(data, axis: int | None = None, dtype=None, exclusive: bool = False) -> Call:
    return make_call("cumprod", [data], ScanopAttrs(axis, None if dtype is None else DataType(dtype), bool(exclusive)))

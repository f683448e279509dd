"""Indexing operators: gather_elements, gather_nd, scatter_elements, one_hot."""

from __future__ import annotations

from ember.ir import as_expr

from .._arith import as_int
from ..expr import Call, PrimValue
from ..struct_info import TensorStructInfo, shape_values
from ._infer import tensor
from .attrs import GatherElementsAttrs, GatherNDAttrs, OneHotAttrs, ScatterElementsAttrs
from .base import make_call, normalize_axis, op_name, register, shape_str, tensor_arg

__all__ = ["gather_elements", "gather_nd", "scatter_elements", "one_hot"]


def _int_indices(call: Call, i: int) -> TensorStructInfo:
    idx = tensor_arg(call, i)
    if idx.dtype is not None and not idx.dtype.is_integer:
        raise TypeError(f"{op_name(call)}: indices must be an integer tensor, got dtype {idx.dtype}")
    return idx


def _infer_gather_elements(call: Call, ctx) -> TensorStructInfo:
    data, idx = tensor_arg(call, 0), _int_indices(call, 1)
    if data.ndim != -1 and idx.ndim != -1:
        if data.ndim != idx.ndim:
            raise ValueError(f"relax.gather_elements: data and indices must have the same ndim, got {data.ndim} and {idx.ndim}")
        normalize_axis(call, call.attrs.axis, data.ndim)
    return TensorStructInfo(idx.shape, data.dtype, data.vdevice, idx.ndim)


register("gather_elements", _infer_gather_elements, arg_names=("data", "indices"))


def gather_elements(data, indices, axis: int = 0) -> Call:
    """``out[i][j] = data[indices[i][j]][j]`` (for axis 0), like ONNX GatherElements."""
    return make_call("gather_elements", [data, indices], GatherElementsAttrs(int(axis)))


def _infer_gather_nd(call: Call, ctx) -> TensorStructInfo:
    data, idx = tensor_arg(call, 0), _int_indices(call, 1)
    b = call.attrs.batch_dims
    dv, iv = shape_values(data), shape_values(idx)
    if dv is None or iv is None:
        return tensor(None, data.dtype, data.vdevice, -1)
    depth = as_int(iv[-1])
    if depth is None:
        return tensor(None, data.dtype, data.vdevice, -1)
    if depth + b > len(dv):
        raise ValueError(
            f"relax.gather_nd: indices {shape_str(iv)} index {depth} dims past batch_dims={b}, "
            f"but data {shape_str(dv)} has only {len(dv)} dims"
        )
    return tensor(list(iv[:-1]) + list(dv[b + depth :]), data.dtype, data.vdevice)


register("gather_nd", _infer_gather_nd, arg_names=("data", "indices"))


def gather_nd(data, indices, batch_dims: int = 0) -> Call:
    """Gather slices of ``data`` at the index tuples in the last dim of ``indices``."""
    return make_call("gather_nd", [data, indices], GatherNDAttrs(int(batch_dims)))


def _infer_scatter_elements(call: Call, ctx) -> TensorStructInfo:
    data, upd = tensor_arg(call, 0), tensor_arg(call, 2)
    _int_indices(call, 1)
    if call.attrs.reduction not in ("update", "add", "mul", "mean", "max", "min"):
        raise ValueError(f"relax.scatter_elements: unknown reduction {call.attrs.reduction!r}")
    if data.dtype is not None and upd.dtype is not None and data.dtype != upd.dtype:
        raise TypeError(f"relax.scatter_elements: updates dtype {upd.dtype} differs from data dtype {data.dtype}")
    if data.ndim != -1:
        normalize_axis(call, call.attrs.axis, data.ndim)
    return TensorStructInfo(data.shape, data.dtype, data.vdevice, data.ndim)


register("scatter_elements", _infer_scatter_elements, arg_names=("data", "indices", "updates"))


def scatter_elements(data, indices, updates, axis: int = 0, reduction: str = "update") -> Call:
    """A copy of ``data`` with ``updates`` written (or reduced) at ``indices`` along ``axis``."""
    return make_call("scatter_elements", [data, indices, updates], ScatterElementsAttrs(int(axis), reduction))


def _infer_one_hot(call: Call, ctx) -> TensorStructInfo:
    idx = _int_indices(call, 0)
    on, off = call.args[1].struct_info, call.args[2].struct_info
    if on.dtype != off.dtype:
        raise TypeError(f"relax.one_hot: on_value and off_value must share a dtype, got {on.dtype} and {off.dtype}")
    values = shape_values(idx)
    if values is None:
        return tensor(None, on.dtype, idx.vdevice, -1 if idx.ndim == -1 else idx.ndim + 1)
    axis = normalize_axis(call, call.attrs.axis, len(values) + 1)
    out = list(values)
    out.insert(axis, as_expr(call.attrs.depth, "int64"))
    return tensor(out, on.dtype, idx.vdevice)


register("one_hot", _infer_one_hot, arg_names=("indices", "on_value", "off_value"))


def one_hot(indices, on_value, off_value, depth: int, axis: int = -1) -> Call:
    """One-hot encode ``indices`` into a new ``axis`` of size ``depth``."""
    on = on_value if isinstance(on_value, PrimValue) else PrimValue(as_expr(on_value))
    off = off_value if isinstance(off_value, PrimValue) else PrimValue(as_expr(off_value))
    return make_call("one_hot", [indices, on, off], OneHotAttrs(int(depth), int(axis)))

"""Tensor-creating operators: full, zeros, ones (and their ``_like`` forms), arange, tril/triu."""

from __future__ import annotations

from ember.ir import DataType, as_expr

from .._arith import as_int, simplify
from ..expr import Call, PrimValue, ShapeExpr
from ..struct_info import PrimStructInfo, TensorStructInfo
from ._infer import tensor
from .attrs import ArangeAttrs, InitAttrs
from .base import make_call, register, shape_arg, tensor_arg

__all__ = ["full", "full_like", "zeros", "zeros_like", "ones", "ones_like", "arange", "tril", "triu"]


def _shape(shape) -> ShapeExpr:
    if isinstance(shape, int):
        shape = (shape,)
    return ShapeExpr(shape) if isinstance(shape, list | tuple) else shape


def _infer_full(call: Call, ctx) -> TensorStructInfo:
    values = shape_arg(call, 0)
    fill = call.args[1].struct_info
    if not isinstance(fill, TensorStructInfo | PrimStructInfo) or (isinstance(fill, TensorStructInfo) and fill.ndim not in (0, -1)):
        raise ValueError("relax.full: fill_value must be a scalar (0-d tensor)")
    dtype = call.attrs.dtype or fill.dtype
    if values is None:
        return tensor(None, dtype, ndim=call.args[0].struct_info.ndim)
    return TensorStructInfo(call.args[0] if isinstance(call.args[0], ShapeExpr) else list(values), dtype)


register("full", _infer_full, arg_names=("shape", "fill_value"))


def full(shape, fill_value, dtype=None) -> Call:
    """A tensor of ``shape`` filled with the scalar ``fill_value``."""
    from ..expr import const

    if not hasattr(fill_value, "struct_info_or_none"):
        fill_value = const(fill_value, dtype)
    return make_call("full", [_shape(shape), fill_value], InitAttrs(None if dtype is None else DataType(dtype)))


def _infer_full_like(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    dtype = call.attrs.dtype or x.dtype
    return TensorStructInfo(x.shape, dtype, x.vdevice, x.ndim)


register("full_like", _infer_full_like, arg_names=("x", "fill_value"))


def full_like(x, fill_value, dtype=None) -> Call:
    """A tensor shaped like ``x`` filled with ``fill_value``."""
    from ..expr import const

    if not hasattr(fill_value, "struct_info_or_none"):
        fill_value = const(fill_value, dtype)
    return make_call("full_like", [x, fill_value], InitAttrs(None if dtype is None else DataType(dtype)))


def _infer_init(call: Call, ctx) -> TensorStructInfo:
    values = shape_arg(call, 0)
    if values is None:
        return tensor(None, call.attrs.dtype, ndim=call.args[0].struct_info.ndim)
    return TensorStructInfo(call.args[0] if isinstance(call.args[0], ShapeExpr) else list(values), call.attrs.dtype)


def _infer_init_like(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    return TensorStructInfo(x.shape, call.attrs.dtype or x.dtype, x.vdevice, x.ndim)


for _n in ("zeros", "ones"):
    register(_n, _infer_init, arg_names=("shape",))
    register(_n + "_like", _infer_init_like, arg_names=("x",))


def zeros(shape, dtype="float32") -> Call:
    return make_call("zeros", [_shape(shape)], InitAttrs(DataType(dtype)))


def ones(shape, dtype="float32") -> Call:
    return make_call("ones", [_shape(shape)], InitAttrs(DataType(dtype)))


def zeros_like(x, dtype=None) -> Call:
    return make_call("zeros_like", [x], InitAttrs(None if dtype is None else DataType(dtype)))


def ones_like(x, dtype=None) -> Call:
    return make_call("ones_like", [x], InitAttrs(None if dtype is None else DataType(dtype)))


def _infer_arange(call: Call, ctx) -> TensorStructInfo:
    start, end, step = (call.args[i].struct_info.value for i in range(3))
    dtype = call.attrs.dtype
    if start is None or end is None or step is None:
        return tensor(None, dtype, ndim=1)
    s, e, st = as_int(start), as_int(end), as_int(step)
    if st == 0:
        raise ValueError("relax.arange: step must not be 0")
    if s is not None and e is not None and st is not None:
        import math

        return tensor([max(math.ceil((e - s) / st), 0)], dtype)
    if any(isinstance(v.value, float) for v in (start, end, step) if hasattr(v, "value")):
        return tensor(None, dtype, ndim=1)
    return tensor([simplify((end - start + step - 1) // step)], dtype)


register("arange", _infer_arange, arg_names=("start", "end", "step"))


def arange(start, end=None, step=1, dtype=None) -> Call:
    """Evenly spaced values in ``[start, end)``."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        dtype = "float32" if any(isinstance(v, float) for v in (start, end, step)) else "int64"
    vals = [v if isinstance(v, PrimValue) else PrimValue(as_expr(v, "int64" if isinstance(v, int) else None)) for v in (start, end, step)]
    return make_call("arange", vals, ArangeAttrs(DataType(dtype)))


def _infer_tri(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    if x.ndim != -1 and x.ndim < 2:
        raise ValueError(f"relax.tril/triu: the tensor must have at least 2 dims, got {x.ndim}")
    return TensorStructInfo(x.shape, x.dtype, x.vdevice, x.ndim)


register("tril", _infer_tri, arg_names=("x", "k"))
register("triu", _infer_tri, arg_names=("x", "k"))


def _k(k) -> PrimValue:
    return k if isinstance(k, PrimValue) else PrimValue(as_expr(k, "int64"))


def tril(x, k: int = 0) -> Call:
    """Lower triangle of the last two dims (diagonal offset ``k``)."""
    return make_call("tril", [x, _k(k)])


def triu(x, k: int = 0) -> Call:
    """Upper triangle of the last two dims (diagonal offset ``k``)."""
    return make_call("triu", [x, _k(k)])

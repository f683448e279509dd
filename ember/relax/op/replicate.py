"""Replicating and reordering elements: tile, repeat, flip."""

from __future__ import annotations

from .._arith import simplify
from ..expr import Call
from ..struct_info import TensorStructInfo, shape_values
from ._infer import prod, same_checking_axis, tensor
from .attrs import FlipAttrs, RepeatAttrs, TileAttrs
from .base import make_call, normalize_axis, register, tensor_arg

__all__ = ["tile", "repeat", "flip"]


def _infer_tile(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    reps = call.attrs.repeats
    if any(r < 1 for r in reps):
        raise ValueError(f"relax.tile: repeats must be positive, got {list(reps)}")
    values = shape_values(x)
    if values is None:
        return tensor(None, x.dtype, x.vdevice, -1 if x.ndim == -1 else max(x.ndim, len(reps)))
    ndim = max(len(values), len(reps))
    dims = [1] * (ndim - len(values)) + list(values)
    reps = (1,) * (ndim - len(reps)) + tuple(reps)
    from ember.ir import as_expr

    return tensor([simplify(as_expr(d, "int64") * r) for d, r in zip(dims, reps)], x.dtype, x.vdevice)


register("tile", _infer_tile, arg_names=("data",))


def tile(data, repeats) -> Call:
    """Repeat the whole tensor ``repeats[i]`` times along each dim (numpy.tile)."""
    reps = (int(repeats),) if isinstance(repeats, int) else tuple(int(r) for r in repeats)
    return make_call("tile", [data], TileAttrs(reps))


def _infer_repeat(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    r, axis = call.attrs.repeats, call.attrs.axis
    if r < 1:
        raise ValueError(f"relax.repeat: repeats must be positive, got {r}")
    values = shape_values(x)
    if axis is None:
        return tensor(None if values is None else [simplify(prod(values) * r)], x.dtype, x.vdevice, 1)
    if values is None:
        return tensor(None, x.dtype, x.vdevice, x.ndim)
    axis = normalize_axis(call, axis, len(values))
    dims = list(values)
    dims[axis] = simplify(dims[axis] * r)
    return tensor(dims, x.dtype, x.vdevice)


register("repeat", _infer_repeat, arg_names=("data",))


def repeat(data, repeats: int, axis: int | None = None) -> Call:
    """Repeat each element ``repeats`` times along ``axis`` (numpy.repeat)."""
    return make_call("repeat", [data], RepeatAttrs(int(repeats), axis))


register("flip", same_checking_axis, arg_names=("data",))


def flip(data, axis: int) -> Call:
    """Reverse the order of elements along ``axis``."""
    return make_call("flip", [data], FlipAttrs(int(axis)))

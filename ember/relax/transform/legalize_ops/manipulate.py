"""Legalisers of data-movement ops: permute_dims, reshape/flatten/expand_dims/squeeze (all
a reshape to the inferred output shape), concat, split, strided_slice, take,
broadcast_to, tile, repeat, flip, gather_elements, one_hot, cumsum/cumprod."""

from __future__ import annotations

from ember import topi

from ...struct_info import TupleStructInfo
from .common import Legalizer, emit_te, out_dtype, out_shape, scalar_or_tensor

__all__ = ["TABLE"]


def _permute_dims(bb, call):
    axes = call.attrs.axes
    return emit_te(bb, call, topi.transpose, call.args[0], None if axes is None else list(axes))


def _reshape_to_output(bb, call):
    shape = out_shape(call)
    return emit_te(bb, call, lambda x: topi.reshape(x, shape), call.args[0])


def _squeeze(bb, call):
    """topi.squeeze reads the input at the output's indices; a reshape would flatten and
    unflatten them (a div/mod per element when a dimension is symbolic)."""
    shape = out_shape(call)
    axis = call.attrs.axis

    def f(x):
        try:
            y = topi.squeeze(x, None if axis is None else list(axis))
        except ValueError:
            return topi.reshape(x, shape)
        return y if len(y.shape) == len(shape) else topi.reshape(x, shape)

    return emit_te(bb, call, f, call.args[0])


def _concat(bb, call):
    axis = call.attrs.axis

    def f(tensors):
        if axis is None:
            tensors = [topi.reshape(t, (-1,)) for t in tensors]
        return topi.concatenate(tensors, 0 if axis is None else axis)

    return emit_te(bb, call, f, call.args[0])


def _split(bb, call):
    spec = call.attrs.indices_or_sections
    spec = int(spec) if isinstance(spec, int) else [int(i) for i in spec]
    sinfo = call.struct_info
    if isinstance(sinfo, TupleStructInfo) and len(sinfo.fields) == 1:
        return emit_te(bb, call, lambda x: [topi.identity(x)], call.args[0])
    return emit_te(bb, call, lambda x: topi.split(x, spec, call.attrs.axis), call.args[0])


def _strided_slice(bb, call):
    a = call.attrs
    strides = list(a.strides) if a.strides is not None else None
    return emit_te(bb, call, topi.strided_slice, call.args[0], list(a.begin), list(a.end),
                   strides, list(a.axes))


def _take(bb, call):
    mode = "clip" if call.attrs.mode == "fast" else call.attrs.mode
    return emit_te(bb, call, lambda x, i: topi.take(x, i, call.attrs.axis, mode=mode), *call.args)


def _broadcast_to(bb, call):
    shape = out_shape(call)
    return emit_te(bb, call, lambda x: topi.broadcast_to(x, shape), call.args[0])


def _tile(bb, call):
    return emit_te(bb, call, lambda x: topi.tile(x, list(call.attrs.repeats)), call.args[0])


def _repeat(bb, call):
    axis = call.attrs.axis

    def f(x):
        if axis is None:
            return topi.repeat(topi.reshape(x, (-1,)), call.attrs.repeats, 0)
        return topi.repeat(x, call.attrs.repeats, axis)

    return emit_te(bb, call, f, call.args[0])


def _flip(bb, call):
    return emit_te(bb, call, lambda x: topi.flip(x, call.attrs.axis), call.args[0])


def _gather_elements(bb, call):
    return emit_te(bb, call, lambda x, i: topi.gather(x, call.attrs.axis, i), *call.args)


def _one_hot(bb, call):
    on, off = (scalar_or_tensor(a) for a in call.args[1:])
    dtype = out_dtype(call)
    return emit_te(bb, call, lambda i: topi.one_hot(i, on, off, call.attrs.depth, call.attrs.axis, dtype),
                   call.args[0])


def _scan(fn) -> Legalizer:
    def legalize(bb, call):
        a = call.attrs
        dtype = out_dtype(call)
        return emit_te(bb, call, lambda x: fn(x, a.axis, dtype, a.exclusive), call.args[0])

    return legalize


TABLE: dict[str, Legalizer] = {
    "relax.permute_dims": _permute_dims,
    "relax.reshape": _reshape_to_output,
    "relax.flatten": _reshape_to_output,
    "relax.expand_dims": _reshape_to_output,
    "relax.squeeze": _squeeze,
    "relax.concat": _concat,
    "relax.split": _split,
    "relax.strided_slice": _strided_slice,
    "relax.take": _take,
    "relax.broadcast_to": _broadcast_to,
    "relax.tile": _tile,
    "relax.repeat": _repeat,
    "relax.flip": _flip,
    "relax.gather_elements": _gather_elements,
    "relax.one_hot": _one_hot,
    "relax.cumsum": _scan(topi.cumsum),
    "relax.cumprod": _scan(topi.cumprod),
}

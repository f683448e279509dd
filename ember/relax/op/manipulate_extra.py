"""More shape-manipulating operators: ``collapse_sum_to`` / ``collapse_sum_like`` (sum a
broadcast result back to the operand's shape, the gradient of broadcasting) and
``layout_transform`` (move the data into the layout an ``IndexMap`` describes)."""

from __future__ import annotations

from ember.ir import FloorDiv, FloorMod, PrimExpr, Var, as_expr, const, node

from .._arith import as_int, prove_equal
from ..expr import Call, ShapeExpr
from ..expr import Var as RelaxVar
from ..struct_info import ShapeStructInfo, TensorStructInfo, shape_values
from .attrs import Attrs
from .base import arg_sinfo, make_call, register, shape_str, tensor_arg

__all__ = ["collapse_sum_to", "collapse_sum_like", "layout_transform"]


# -- collapse_sum_to / collapse_sum_like -----------------------------------------------

def check_collapse_shape(name: str, data: tuple, target: tuple) -> None:
    """Each trailing dim of ``target`` must equal the matching dim of ``data`` or be 1;
    ``target`` may not have more dims than ``data``."""
    if len(target) > len(data):
        raise ValueError(f"{name}: the target shape {shape_str(target)} has more dims than the data "
                         f"shape {shape_str(data)}")
    for k in range(1, len(target) + 1):
        d, t = data[-k], target[-k]
        if as_int(t) == 1 or prove_equal(d, t):
            continue
        raise ValueError(f"{name}: cannot collapse shape {shape_str(data)} to {shape_str(target)} "
                         f"(dimension {d} vs {t}; a target dim must equal the data dim or be 1)")


def _collapse_result(call: Call, data: TensorStructInfo, target_shape, target_ndim: int, vdevice):
    values = shape_values(data)
    tvalues = shape_values(TensorStructInfo(target_shape, None)) if target_shape is not None else None
    if values is not None and tvalues is not None:
        check_collapse_shape(call.op.name, tuple(values), tuple(tvalues))
    if target_shape is not None:
        return TensorStructInfo(target_shape, data.dtype, vdevice)
    return TensorStructInfo(None, data.dtype, vdevice, target_ndim)


def _infer_collapse_sum_like(call: Call, ctx) -> TensorStructInfo:
    data, target = tensor_arg(call, 0), tensor_arg(call, 1)
    return _collapse_result(call, data, target.shape, target.ndim, target.vdevice)


def _infer_collapse_sum_to(call: Call, ctx) -> TensorStructInfo:
    data = tensor_arg(call, 0)
    shape = call.args[1]
    sinfo = arg_sinfo(call, 1)
    if not isinstance(sinfo, ShapeStructInfo):
        raise TypeError(f"relax.collapse_sum_to: shape must be a Shape, got {type(sinfo).__name__}")
    if isinstance(shape, ShapeExpr | RelaxVar):
        target = shape
    else:
        target = None if sinfo.values is None else ShapeExpr(sinfo.values)
    return _collapse_result(call, data, target, sinfo.ndim, data.vdevice)


register("collapse_sum_like", _infer_collapse_sum_like, arg_names=("data", "collapse_target"))
register("collapse_sum_to", _infer_collapse_sum_to, arg_names=("data", "shape"))


def collapse_sum_like(data, collapse_target) -> Call:
    """Sum ``data`` over its broadcast dims so that it has ``collapse_target``'s shape."""
    return make_call("collapse_sum_like", [data, collapse_target])


def collapse_sum_to(data, shape) -> Call:
    """Sum ``data`` over its broadcast dims so that it has ``shape``."""
    if isinstance(shape, list | tuple):
        shape = ShapeExpr([as_expr(v, "int64") if isinstance(v, int) else v for v in shape])
    return make_call("collapse_sum_to", [data, shape])


# -- layout_transform ----------------------------------------------------------------

@node
class LayoutTransformAttrs(Attrs):
    index_map: object
    pad_value: object
    axis_separators: object
    input_axis_separators: object


def _index_map(index_map, ndim: int | None = None):
    from ember.tir.schedule.index_map import IndexMap

    if isinstance(index_map, IndexMap):
        return index_map
    if callable(index_map):
        return IndexMap.from_func(index_map, ndim=ndim, index_dtype="int64")
    raise TypeError(f"relax.layout_transform: index_map must be a callable or tir.IndexMap, got "
                    f"{type(index_map).__name__}")


def const_i64(value: int) -> PrimExpr:
    return const(int(value), "int64")


def _ceildiv(extent: PrimExpr, c: int) -> PrimExpr:
    n = as_int(extent)
    if n is not None:
        return const_i64(-(-n // c))
    return FloorDiv(extent - FloorMod(extent, const_i64(-c)), const_i64(c))


def map_layout_shape(index_map, shape: tuple) -> list | None:
    """The shape of the transformed tensor (each output's extent over the input box, padded
    up for splits); None when an output's extent cannot be bounded."""
    if all(as_int(s) is not None for s in shape):
        try:
            return [const_i64(as_int(v)) for v in index_map.map_shape(shape)]
        except ValueError:
            return None
    extent = {id(v): s for v, s in zip(index_map.initial_indices, shape)}
    out = []
    for e in index_map.final_indices:
        if isinstance(e, Var) and id(e) in extent:
            out.append(extent[id(e)])
        elif isinstance(e, FloorDiv) and isinstance(e.a, Var) and id(e.a) in extent and as_int(e.b):
            out.append(_ceildiv(extent[id(e.a)], as_int(e.b)))
        elif isinstance(e, FloorMod) and as_int(e.b):
            out.append(const_i64(as_int(e.b)))
        elif as_int(e) is not None:
            out.append(const_i64(1))
        else:
            return None
    return out


def _infer_layout_transform(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    a = call.attrs
    imap = a.index_map
    pad = a.pad_value
    if pad is not None and x.dtype is not None and pad.dtype != x.dtype:
        raise TypeError(f"relax.layout_transform: pad_value must have the data dtype {x.dtype}, got "
                        f"{pad!r} of dtype {pad.dtype}")
    if x.ndim != -1 and x.ndim != imap.ndim:
        raise ValueError(f"relax.layout_transform: index_map takes {imap.ndim} indices but data has "
                         f"{x.ndim} dims")
    out_ndim = len(imap.final_indices)
    values = shape_values(x)
    if values is None:
        return TensorStructInfo(None, x.dtype, x.vdevice, out_ndim)
    new = map_layout_shape(imap, tuple(values))
    if new is None:
        return TensorStructInfo(None, x.dtype, x.vdevice, out_ndim)
    return TensorStructInfo(new, x.dtype, x.vdevice)


register("layout_transform", _infer_layout_transform, arg_names=("x",))


def layout_transform(x, index_map, pad_value=None, axis_separators=None, input_axis_separators=None) -> Call:
    """Rewrite ``x`` into the layout ``index_map`` describes; padding (where the new shape
    holds more elements) is filled with ``pad_value`` (0 when None)."""
    sinfo = x.struct_info_or_none() if hasattr(x, "struct_info_or_none") else None
    ndim = sinfo.ndim if isinstance(sinfo, TensorStructInfo) and sinfo.ndim != -1 else None
    imap = _index_map(index_map, ndim)
    if pad_value is not None and not isinstance(pad_value, PrimExpr):
        if not isinstance(pad_value, bool | int | float):
            raise TypeError(f"relax.layout_transform: pad_value must be a number or PrimExpr, got "
                            f"{type(pad_value).__name__}")
        dtype = sinfo.dtype if isinstance(sinfo, TensorStructInfo) else None
        if dtype is None or (isinstance(pad_value, float) and not dtype.is_float):
            dtype = "float32" if isinstance(pad_value, float) else "int64"
        pad_value = const(pad_value, str(dtype))
    # no separators: an empty tuple, as TVM stores it (its Python wrapper turns None into [])
    seps = tuple(int(s) for s in axis_separators or ())
    in_seps = tuple(int(s) for s in input_axis_separators or ())
    return make_call("layout_transform", [x], LayoutTransformAttrs(imap, pad_value, seps, in_seps))

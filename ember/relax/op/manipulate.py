"""Shape-manipulating operators: permute_dims, reshape, flatten, expand_dims, squeeze,
concat, split, strided_slice, take, broadcast_to."""

from __future__ import annotations

from ember.ir import IntImm, PrimExpr, as_expr

from .._arith import as_int, prove_equal, simplify
from ..expr import Call, ShapeExpr
from ..struct_info import TensorStructInfo, TupleStructInfo, shape_values
from ._infer import broadcast_shapes, prod, tensor
from .attrs import (
    ConcatAttrs, ExpandDimsAttrs, FlattenAttrs, PermuteDimsAttrs, SplitAttrs, SqueezeAttrs,
    StridedSliceAttrs, TakeAttrs,
)
from .base import (
    make_call, normalize_axes, normalize_axis, register, shape_arg, shape_str,
    tensor_arg, tuple_of_tensors,
)

__all__ = [
    "permute_dims", "reshape", "flatten", "expand_dims", "squeeze", "concat", "split",
    "strided_slice", "take", "broadcast_to",
]


def _same_device(x: TensorStructInfo):
    return x.vdevice


# -- permute_dims -------------------------------------------------------------------

def _infer_permute(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    axes = call.attrs.axes
    if x.ndim == -1:
        return tensor(None, x.dtype, x.vdevice, -1 if axes is None else len(axes))
    if axes is None:
        axes = tuple(reversed(range(x.ndim)))
    if len(axes) != x.ndim:
        raise ValueError(f"relax.permute_dims: {len(axes)} axes given for a tensor of {x.ndim} dims")
    axes = normalize_axes(call, axes, x.ndim)
    values = shape_values(x)
    if values is None:
        return tensor(None, x.dtype, x.vdevice, x.ndim)
    return tensor([values[a] for a in axes], x.dtype, x.vdevice)


register("permute_dims", _infer_permute, arg_names=("x",))


def permute_dims(x, axes=None) -> Call:
    """Permute the dimensions of ``x`` (reverse them when ``axes`` is None)."""
    return make_call("permute_dims", [x], PermuteDimsAttrs(None if axes is None else tuple(int(a) for a in axes)))


# -- reshape ------------------------------------------------------------------------

def _resolve_new_shape(name: str, old: tuple | None, new: tuple) -> tuple:
    """Replace a -1 in ``new`` with what the element count requires; check the count."""
    minus = [i for i, v in enumerate(new) if as_int(v) == -1]
    if len(minus) > 1:
        raise ValueError(f"{name}: at most one -1 may appear in the new shape {shape_str(new)}")
    if old is None:
        return new
    total = prod(old)
    if minus:
        known = prod([v for i, v in enumerate(new) if i != minus[0]])
        it, ik = as_int(total), as_int(known)
        if it is not None and ik is not None:
            if ik == 0 or it % ik:
                raise ValueError(f"{name}: cannot reshape {shape_str(old)} to {shape_str(new)}")
            fill: PrimExpr = IntImm(total.dtype, it // ik)
        else:
            fill = simplify(total // known)
        new = new[: minus[0]] + (fill,) + new[minus[0] + 1 :]
    it, inew = as_int(total), as_int(prod(new))
    if it is not None and inew is not None and it != inew:
        raise ValueError(
            f"{name}: cannot reshape {shape_str(old)} ({it} elements) to {shape_str(new)} ({inew} elements)"
        )
    return new


def _infer_reshape(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    new = shape_arg(call, 1)
    if new is None:
        return tensor(None, x.dtype, x.vdevice, call.args[1].struct_info.ndim)
    new = _resolve_new_shape("relax.reshape", shape_values(x), tuple(new))
    if any(as_int(v) == -1 for v in new):
        return tensor(None, x.dtype, x.vdevice, len(new))
    if isinstance(call.args[1], ShapeExpr) and all(a is b for a, b in zip(new, call.args[1].values)):
        return TensorStructInfo(call.args[1], x.dtype, x.vdevice)
    return tensor(new, x.dtype, x.vdevice)


register("reshape", _infer_reshape, arg_names=("x", "shape"))


def reshape(x, shape) -> Call:
    """Reshape ``x``; one dim of ``shape`` may be -1 (inferred from the element count)."""
    if isinstance(shape, list | tuple):
        values = tuple(as_expr(v, "int64") if isinstance(v, int) else v for v in shape)
        sinfo = x.struct_info_or_none() if hasattr(x, "struct_info_or_none") else None
        if isinstance(sinfo, TensorStructInfo):
            values = _resolve_new_shape("relax.reshape", shape_values(sinfo), values)
        shape = ShapeExpr(values)
    return make_call("reshape", [x, shape])


def _infer_flatten(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    values = shape_values(x)
    if values is None:
        return tensor(None, x.dtype, x.vdevice, 1)
    return tensor([prod(values)], x.dtype, x.vdevice)


register("flatten", _infer_flatten, arg_names=("x",))


def flatten(x) -> Call:
    """Flatten ``x`` to one dimension."""
    return make_call("flatten", [x], FlattenAttrs())


# -- expand_dims / squeeze ----------------------------------------------------------

def _infer_expand_dims(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    if x.ndim == -1:
        return tensor(None, x.dtype, x.vdevice, -1)
    out_ndim = x.ndim + len(call.attrs.axis)
    axes = normalize_axes(call, call.attrs.axis, out_ndim)
    values = shape_values(x)
    if values is None:
        return tensor(None, x.dtype, x.vdevice, out_ndim)
    rest = iter(values)
    one = as_expr(1, "int64")
    return tensor([one if i in axes else next(rest) for i in range(out_ndim)], x.dtype, x.vdevice)


register("expand_dims", _infer_expand_dims, arg_names=("x",))


def expand_dims(x, axis) -> Call:
    """Insert size-1 dims at ``axis`` (an int or a list, positions in the output)."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return make_call("expand_dims", [x], ExpandDimsAttrs(tuple(int(a) for a in axes)))


def _infer_squeeze(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    values = shape_values(x)
    if x.ndim == -1:
        return tensor(None, x.dtype, x.vdevice, -1)
    if call.attrs.axis is None:
        if values is None:
            return tensor(None, x.dtype, x.vdevice, -1)
        return tensor([v for v in values if as_int(v) != 1], x.dtype, x.vdevice)
    axes = normalize_axes(call, call.attrs.axis, x.ndim)
    if values is None:
        return tensor(None, x.dtype, x.vdevice, x.ndim - len(axes))
    for a in axes:
        d = as_int(values[a])
        if d is not None and d != 1:
            raise ValueError(f"relax.squeeze: axis {a} has size {d}, not 1, in shape {shape_str(values)}")
    return tensor([v for i, v in enumerate(values) if i not in axes], x.dtype, x.vdevice)


register("squeeze", _infer_squeeze, arg_names=("x",))


def squeeze(x, axis=None) -> Call:
    """Remove size-1 dims (those listed in ``axis``, or all)."""
    if isinstance(axis, int):
        axis = (axis,)
    return make_call("squeeze", [x], SqueezeAttrs(None if axis is None else tuple(int(a) for a in axis)))


# -- concat / split -------------------------------------------------------------------

def _infer_concat(call: Call, ctx) -> TensorStructInfo:
    infos = tuple_of_tensors(call, 0)
    if not infos:
        raise ValueError("relax.concat: needs at least one tensor")
    dtypes = {str(i.dtype) for i in infos if i.dtype is not None}
    if len(dtypes) > 1:
        raise TypeError(f"relax.concat: all tensors must have one dtype, got {sorted(dtypes)}")
    dtype = infos[0].dtype if all(i.dtype is not None for i in infos) else None
    ndims = {i.ndim for i in infos if i.ndim != -1}
    if len(ndims) > 1:
        raise ValueError(f"relax.concat: all tensors must have the same ndim, got {sorted(ndims)}")
    if not ndims:
        return tensor(None, dtype, infos[0].vdevice, -1)
    ndim = ndims.pop()
    axis = call.attrs.axis
    if axis is None:
        parts = [shape_values(i) for i in infos]
        if any(p is None for p in parts):
            return tensor(None, dtype, infos[0].vdevice, 1)
        return tensor([prod([prod(p) for p in parts])], dtype, infos[0].vdevice)
    axis = normalize_axis(call, axis, ndim)
    parts = [shape_values(i) for i in infos]
    if any(p is None for p in parts):
        return tensor(None, dtype, infos[0].vdevice, ndim)
    out = list(parts[0])
    for p in parts[1:]:
        for d in range(ndim):
            if d == axis:
                continue
            a, b = as_int(out[d]), as_int(p[d])
            if a is not None and b is not None and a != b:
                raise ValueError(
                    f"relax.concat: shapes {shape_str(parts[0])} and {shape_str(p)} differ on axis {d}"
                )
        out[axis] = out[axis] + p[axis]
    out[axis] = simplify(out[axis])
    return tensor(out, dtype, infos[0].vdevice)


register("concat", _infer_concat, arg_names=("tensors",))


def concat(tensors, axis: int | None = 0) -> Call:
    """Concatenate a tuple of tensors along ``axis`` (None: flatten them first)."""
    return make_call("concat", [tensors], ConcatAttrs(axis))


def _infer_split(call: Call, ctx) -> TupleStructInfo:
    x = tensor_arg(call, 0)
    spec = call.attrs.indices_or_sections
    count = spec if isinstance(spec, int) else len(spec) + 1
    if x.ndim == -1:
        return TupleStructInfo([tensor(None, x.dtype, x.vdevice, -1)] * count)
    axis = normalize_axis(call, call.attrs.axis, x.ndim)
    values = shape_values(x)
    if values is None:
        return TupleStructInfo([tensor(None, x.dtype, x.vdevice, x.ndim)] * count)
    dim = values[axis]
    if isinstance(spec, int):
        if spec <= 0:
            raise ValueError(f"relax.split: the number of sections must be positive, got {spec}")
        n = as_int(dim)
        if n is not None and n % spec:
            raise ValueError(f"relax.split: axis {axis} of size {n} cannot be split into {spec} equal sections")
        size = simplify((dim + spec - 1) // spec)
        pieces = [size] * spec
    else:
        bounds = [as_expr(0, "int64")] + [as_expr(i, "int64") for i in spec] + [dim]
        pieces = [simplify(_max0(b - a)) for a, b in zip(bounds, bounds[1:])]
    outs = []
    for p in pieces:
        dims = list(values)
        dims[axis] = p
        outs.append(tensor(dims, x.dtype, x.vdevice))
    return TupleStructInfo(outs)


def _max0(e: PrimExpr) -> PrimExpr:
    i = as_int(e)
    return as_expr(max(i, 0), "int64") if i is not None else e


register("split", _infer_split, arg_names=("x",))


def split(x, indices_or_sections, axis: int = 0) -> Call:
    """Split ``x`` into equal sections (an int) or at the given indices (a list)."""
    spec = indices_or_sections if isinstance(indices_or_sections, int) else tuple(int(i) for i in indices_or_sections)
    return make_call("split", [x], SplitAttrs(spec, int(axis)))


# -- strided_slice ------------------------------------------------------------------

def _slice_len(dim: PrimExpr, begin: int, end: int, stride: int) -> PrimExpr:
    n = as_int(dim)
    if n is not None:
        return as_expr(len(range(n)[slice(begin, end, stride)]), "int64")
    # symbolic dim: assume the slice is in bounds, as TVM does with assume_inbound
    b = dim + begin if begin < 0 else as_expr(begin, "int64")
    e = dim if end >= 2**31 - 1 else (dim + end if end < 0 else as_expr(end, "int64"))
    if stride > 0:
        return simplify((e - b + (stride - 1)) // stride)
    return simplify((b - e + (-stride - 1)) // (-stride))


def _infer_strided_slice(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    a = call.attrs
    if not len(a.axes) == len(a.begin) == len(a.end):
        raise ValueError(
            f"relax.strided_slice: axes, begin and end must have one length, got "
            f"{len(a.axes)}, {len(a.begin)} and {len(a.end)}"
        )
    strides = a.strides or (1,) * len(a.axes)
    if x.ndim == -1:
        return tensor(None, x.dtype, x.vdevice, -1)
    axes = normalize_axes(call, a.axes, x.ndim)
    values = shape_values(x)
    if values is None:
        return tensor(None, x.dtype, x.vdevice, x.ndim)
    out = list(values)
    for ax, b, e, s in zip(axes, a.begin, a.end, strides):
        if s == 0:
            raise ValueError("relax.strided_slice: strides must not be 0")
        out[ax] = _slice_len(values[ax], b, e, s)
    return tensor(out, x.dtype, x.vdevice)


register("strided_slice", _infer_strided_slice, arg_names=("x",))


def strided_slice(x, axes, begin, end, strides=None, assume_inbound: bool = False) -> Call:
    """Slice ``x`` along ``axes`` from ``begin`` to ``end`` (exclusive) by ``strides``."""

    def ints(v):
        return tuple(int(i) for i in v)

    attrs = StridedSliceAttrs(ints(axes), ints(begin), ints(end), None if strides is None else ints(strides), assume_inbound)
    return make_call("strided_slice", [x], attrs)


# -- take -------------------------------------------------------------------------------

def _infer_take(call: Call, ctx) -> TensorStructInfo:
    x, idx = tensor_arg(call, 0), tensor_arg(call, 1)
    if idx.dtype is not None and not idx.dtype.is_integer:
        raise TypeError(f"relax.take: indices must be an integer tensor, got dtype {idx.dtype}")
    axis = call.attrs.axis
    xv, iv = shape_values(x), shape_values(idx)
    if axis is None:
        if iv is None:
            return tensor(None, x.dtype, x.vdevice, idx.ndim)
        return tensor(iv, x.dtype, x.vdevice)
    if x.ndim == -1 or idx.ndim == -1:
        return tensor(None, x.dtype, x.vdevice, -1)
    axis = normalize_axis(call, axis, x.ndim)
    if xv is None or iv is None:
        return tensor(None, x.dtype, x.vdevice, x.ndim - 1 + idx.ndim)
    return tensor(list(xv[:axis]) + list(iv) + list(xv[axis + 1 :]), x.dtype, x.vdevice)


register("take", _infer_take, arg_names=("x", "indices"))


def take(x, indices, axis: int | None = None, mode: str = "fast") -> Call:
    """Gather entries of ``x`` along ``axis`` at ``indices`` (flattened ``x`` when None)."""
    return make_call("take", [x, indices], TakeAttrs(axis, mode))


# -- broadcast_to ------------------------------------------------------------------------

def _infer_broadcast_to(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    target = shape_arg(call, 1)
    if target is None:
        return tensor(None, x.dtype, x.vdevice, call.args[1].struct_info.ndim)
    goal = tensor(target, x.dtype)
    if x.ndim > len(target):
        raise ValueError(
            f"relax.broadcast_to: cannot broadcast a {x.ndim}-d tensor to {shape_str(target)}"
        )
    values, _ = broadcast_shapes(call, x, goal)
    if values is not None and not all(prove_equal(a, b) or as_int(b) is None for a, b in zip(values, target)):
        raise ValueError(
            f"relax.broadcast_to: cannot broadcast shape {shape_str(shape_values(x))} to {shape_str(target)}"
        )
    return TensorStructInfo(call.args[1] if isinstance(call.args[1], ShapeExpr) else list(target), x.dtype, x.vdevice)


register("broadcast_to", _infer_broadcast_to, arg_names=("x", "shape"))


def broadcast_to(x, shape) -> Call:
    """Broadcast ``x`` to ``shape`` (numpy rules)."""
    if isinstance(shape, list | tuple):
        shape = ShapeExpr(shape)
    return make_call("broadcast_to", [x, shape])



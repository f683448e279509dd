"""ONNX converters: tensor layout and shape ops — Constant, Identity, Dropout, Shape, Size,
Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Gather,
GatherElements, Expand, Tile.

Arguments that are shapes (Reshape's shape, Slice's starts/ends, …) are read with
``ctx.const_value`` when known at import time; ``shape_arg`` also accepts shape values
tracked as ``ShapeExpr`` (``Shape`` of a tensor with symbolic dims).
"""

from __future__ import annotations

import numpy as np

from ember import tir
from ember.ir import IntImm

from ... import op as R
from ...expr import PrimValue, ShapeExpr, const
from ...struct_info import ShapeStructInfo
from .common import dtype_of, int_list, ndim_of, norm_axes, norm_axis, shape_of
from .ops_tensor_dynamic import expand_runtime, reshape_runtime, slice_runtime, tile_runtime
from .registry import converter

INT64_MAX = np.iinfo(np.int64).max


def known_ints(ctx, expr, what: str) -> list[int]:
    """The int values of a shape-like input known at import time (or an error)."""
    value = ctx.const_value(expr)
    if value is None:
        raise ctx.error(f"{what} must be known at import time (a constant or initializer); "
                        "a run-time value is not supported here")
    return int_list(value)


def shape_arg(ctx, expr, what: str):
    """A shape input as a list of ints / PrimExprs (symbolic)."""
    if isinstance(expr, ShapeExpr):
        return [int(v.value) if isinstance(v, IntImm) else v for v in expr.values]
    return known_ints(ctx, expr, what)


@converter("Constant", since=1)
def constant(ctx, node, inputs, attrs):
    for key in ("value", "sparse_value"):
        if key in attrs:
            return const(np.asarray(attrs[key]))
    if "value_float" in attrs:
        return const(np.array(attrs["value_float"], "float32"))
    if "value_floats" in attrs:
        return const(np.array(attrs["value_floats"], "float32"))
    if "value_int" in attrs:
        return const(np.array(attrs["value_int"], "int64"))
    if "value_ints" in attrs:
        return const(np.array(attrs["value_ints"], "int64"))
    raise ctx.error(f"unsupported Constant attributes {sorted(attrs)}")


@converter("Identity", since=1)
def identity(ctx, node, inputs, attrs):
    return inputs[0]


@converter("Dropout", since=1)
def dropout(ctx, node, inputs, attrs):
    """Inference (the default): the input passes through and the mask is all ones.
    Training mode (opset 12+, ``training_mode`` true or a run-time input): a keep mask of
    uniform draws ``>= ratio`` from the packed generator (``seed`` repeats the reference's
    numbers), the kept values scaled by ``1 / (1 - ratio)``."""
    x = inputs[0]
    want_mask = len(node.output) > 1 and bool(node.output[1])
    training = inputs[2] if ctx.opset >= 12 and len(inputs) > 2 else None
    known = ctx.const_value(training)
    if training is None or (known is not None and not bool(known)):
        return [x, R.ones_like(x, "bool")] if want_mask else x
    return _dropout_training(ctx, x, inputs[1] if len(inputs) > 1 else None, training,
                             known is None, attrs, want_mask)


def _dropout_training(ctx, x, ratio, training, runtime_flag: bool, attrs, want_mask: bool):
    import math

    from ember import relax

    from . import packed

    dims = shape_of(x)
    if dims is None:
        raise ctx.error("Dropout in training mode needs the input's shape at import")
    dtype = dtype_of(x)
    if ratio is None:
        ratio = const(np.array(0.5, dtype))
    seed = relax.PrimValue(float(attrs["seed"]) if "seed" in attrs else math.nan)
    mask = ctx.emit(R.call_dps_packed(packed.NAMES["dropout_mask"], [ratio, seed],
                                      relax.TensorStructInfo(dims, "bool")))
    one = const(np.array(1, dtype))
    scale = ctx.emit(R.divide(one, R.subtract(one, R.astype(ratio, dtype))))
    y = ctx.emit(R.where(mask, R.multiply(x, scale), R.zeros_like(x)))
    if runtime_flag:
        flag = ctx.emit(R.astype(training, "bool"))
        y = ctx.emit(R.where(flag, y, x))
        mask = ctx.emit(R.logical_or(mask, R.logical_not(flag)))
    return [y, mask] if want_mask else y


@converter("Shape", since=1)
def shape(ctx, node, inputs, attrs):
    dims = shape_of(inputs[0])
    if dims is None:
        dims = _dims_at_run_time(ctx, inputs[0])
    n = len(dims)
    start, end = attrs.get("start", 0), attrs.get("end", n)
    start = min(max(start + n if start < 0 else start, 0), n)
    end = min(max(end + n if end < 0 else end, 0), n)
    dims = dims[start:end]
    if all(isinstance(d, int) for d in dims):
        return const(np.array(dims, dtype="int64"))
    return ShapeExpr(dims)


def _dims_at_run_time(ctx, x) -> list:
    """Fresh symbolic dims bound to ``x``'s shape when it has a known rank only."""
    ndim = ndim_of(x)
    if ndim < 0:
        raise ctx.error("Shape needs an input of known rank")
    value = ctx.emit(R.shape_of(x))
    dims = [tir.Var(f"dim{i}", "int64") for i in range(ndim)]
    ctx.bb.match_cast(value, ShapeStructInfo(dims))
    return dims


@converter("Size", since=1)
def size(ctx, node, inputs, attrs):
    dims = shape_of(inputs[0])
    if dims is not None and all(isinstance(d, int) for d in dims):
        return const(np.array(int(np.prod(dims)), dtype="int64"))
    total = 1
    for d in dims or ():
        total = total * d
    return PrimValue(total) if dims is not None else None


@converter("Reshape", since=1)
def reshape(ctx, node, inputs, attrs):
    x = inputs[0]
    allowzero = attrs.get("allowzero", 0)
    if ctx.opset >= 5 and not isinstance(inputs[1], ShapeExpr) and ctx.const_value(inputs[1]) is None:
        return reshape_runtime(ctx, x, inputs[1], bool(allowzero))
    target = attrs["shape"] if ctx.opset < 5 else shape_arg(ctx, inputs[1], "Reshape's shape")
    dims = shape_of(x)
    new = []
    for i, d in enumerate(target):
        if isinstance(d, int) and d == 0 and not allowzero:
            if dims is None:
                raise ctx.error("Reshape with 0 (copy a dim) needs an input of known rank")
            new.append(dims[i])
        else:
            new.append(d)
    return R.reshape(x, new)


@converter("Flatten", since=1)
def flatten(ctx, node, inputs, attrs):
    x = inputs[0]
    dims = shape_of(x)
    axis = attrs.get("axis", 1)
    axis = axis + len(dims) if axis < 0 else axis
    outer, inner = 1, 1
    for d in dims[:axis]:
        outer = outer * d
    for d in dims[axis:]:
        inner = inner * d
    return R.reshape(x, [outer, inner])


def _axes_input(ctx, node, inputs, attrs, index: int):
    if ctx.opset >= 13 and node.op_type in ("Squeeze", "Unsqueeze") or \
            ctx.opset >= 18 and node.op_type.startswith("Reduce"):
        if len(inputs) > index and inputs[index] is not None:
            return known_ints(ctx, inputs[index], f"{node.op_type}'s axes")
        return None
    return attrs.get("axes")


def _runtime_squeeze_axes(ctx, x, inputs) -> list[int] | None:
    """Squeeze's axes given at run time are still known when ``x``'s shape is: only unit
    dims may be squeezed, so ``k`` axes on a tensor with exactly ``k`` unit dims name them."""
    if ctx.opset < 13 or len(inputs) < 2 or inputs[1] is None or ctx.const_value(inputs[1]) is not None:
        return None
    dims, count = shape_of(x), shape_of(inputs[1])
    if dims is None or count is None or not all(isinstance(d, int) for d in dims + count):
        raise ctx.error("Squeeze's axes are a run-time input: the input's shape and the number of "
                        "axes must be static to know the output's rank")
    units = [i for i, d in enumerate(dims) if d == 1]
    k = int(np.prod(count))
    declared = ctx.declared_shape(ctx.node.output[0])
    if k != len(units) and declared is not None and len(declared) == len(dims) - k:
        # the model declares the output shape: the squeezed unit dims are the ones it lacks
        rest = list(declared)
        kept = []
        for i, d in enumerate(dims):
            if rest and d == rest[0]:
                rest.pop(0)
            else:
                kept.append(i)
        if not rest and len(kept) == k and all(dims[i] == 1 for i in kept):
            return kept
    if k != len(units):
        raise ctx.error(f"Squeeze's axes are a run-time input: {k} axes on a tensor of shape {dims} "
                        f"({len(units)} unit dims) do not determine the output shape at import")
    return units


@converter("Squeeze", since=1)
def squeeze(ctx, node, inputs, attrs):
    x = inputs[0]
    runtime = _runtime_squeeze_axes(ctx, x, inputs)
    if runtime is not None:
        return R.squeeze(x, runtime)
    axes = _axes_input(ctx, node, inputs, attrs, 1)
    if isinstance(x, ShapeExpr):
        return PrimValue(x.values[0])
    if axes is None:
        dims = shape_of(x)
        axes = [i for i, d in enumerate(dims) if isinstance(d, int) and d == 1]
    return R.squeeze(x, norm_axes(axes, ndim_of(x)))


@converter("Unsqueeze", since=1)
def unsqueeze(ctx, node, inputs, attrs):
    x = inputs[0]
    if ctx.opset >= 13 and len(inputs) > 1 and inputs[1] is not None and ctx.const_value(inputs[1]) is None:
        from .ops_tensor_dynamic import unsqueeze_runtime

        return unsqueeze_runtime(ctx, x, inputs[1])
    axes = _axes_input(ctx, node, inputs, attrs, 1)
    if isinstance(x, PrimValue):
        return ShapeExpr([x.value])
    out_ndim = ndim_of(x) + len(axes)
    axes = sorted(norm_axes(axes, out_ndim))
    if shape_of(x) is None:
        return R.expand_dims(x, axes)
    dims = list(shape_of(x))
    for a in axes:
        dims.insert(a, 1)
    return R.reshape(x, dims)


@converter("Transpose", since=1)
def transpose(ctx, node, inputs, attrs):
    perm = attrs.get("perm")
    if perm is None:
        perm = list(range(ndim_of(inputs[0])))[::-1]
    return R.permute_dims(inputs[0], perm)


@converter("Concat", since=1)
def concat(ctx, node, inputs, attrs):
    args = [x for x in inputs if x is not None]
    symbolic = [isinstance(x, ShapeExpr | PrimValue) for x in args]
    if any(symbolic) and all(s or ctx.const_value(x) is not None for x, s in zip(args, symbolic, strict=True)):
        dims = []
        for x in args:
            dims += shape_arg(ctx, x, "Concat's shape input") if not isinstance(x, PrimValue) else [x.value]
        return ShapeExpr(dims)
    if any(symbolic):
        from .shape_values import as_tensor

        args = [as_tensor(ctx, x) for x in args]
    args = [x for x in args if shape_of(x) is None or 0 not in shape_of(x)] or args[:1]
    if len(args) == 1:
        return args[0]
    return R.concat(args, axis=norm_axis(attrs["axis"], ndim_of(args[0])))


@converter("Split", since=1)
def split(ctx, node, inputs, attrs):
    x = inputs[0]
    axis = norm_axis(attrs.get("axis", 0), ndim_of(x))
    if len(inputs) > 1 and inputs[1] is not None and ctx.const_value(inputs[1]) is None:
        from .ops_tensor_dynamic import split_runtime

        return split_runtime(ctx, x, inputs[1], axis, len(node.output))
    if ctx.opset >= 13 and len(inputs) > 1 and inputs[1] is not None:
        sizes = known_ints(ctx, inputs[1], "Split's split")
    elif ctx.opset < 13 and len(inputs) > 1 and inputs[1] is not None:
        sizes = known_ints(ctx, inputs[1], "Split's split")
    else:
        sizes = attrs.get("split")
    n = len(node.output)
    dim = shape_of(x)[axis]
    if n == 1:  # one part: the input itself (a value, not a 1-tuple)
        return [x]
    if sizes is None:
        if not isinstance(dim, int):
            return R.split(x, n, axis)
        parts = attrs.get("num_outputs", n)
        chunk = -(-dim // parts)
        sizes = [min(chunk, dim - i * chunk) for i in range(parts)]
    indices = list(np.cumsum(sizes)[:-1])
    return R.split(x, [int(i) for i in indices], axis)


def _slice_bounds(dim: int, start: int, end: int, step: int) -> tuple[int, int]:
    if step > 0:
        start = min(max(start + dim if start < 0 else start, 0), dim)
        end = min(max(end + dim if end < 0 else end, 0), dim)
    else:
        start = min(max(start + dim if start < 0 else start, -1), dim - 1)
        end = min(max(end + dim if end < 0 else end, -1), dim - 1)
    return start, end


@converter("Slice", since=1)
def slice_(ctx, node, inputs, attrs):
    x = inputs[0]
    if ctx.opset < 10:
        starts, ends = attrs["starts"], attrs["ends"]
        axes = attrs.get("axes", list(range(len(starts))))
        steps = [1] * len(starts)
    else:
        args = list(inputs[1:5]) + [None] * (5 - len(inputs))
        if not isinstance(x, ShapeExpr) and any(a is not None and ctx.const_value(a) is None for a in args):
            return slice_runtime(ctx, x, *args)
        starts = known_ints(ctx, inputs[1], "Slice's starts")
        ends = known_ints(ctx, inputs[2], "Slice's ends")
        axes = (known_ints(ctx, inputs[3], "Slice's axes") if len(inputs) > 3 and inputs[3] is not None
                else list(range(len(starts))))
        steps = (known_ints(ctx, inputs[4], "Slice's steps") if len(inputs) > 4 and inputs[4] is not None
                 else [1] * len(starts))
    if isinstance(x, ShapeExpr):
        vals = list(x.values)
        s, e = _slice_bounds(len(vals), starts[0], ends[0], steps[0])
        return ShapeExpr(vals[s:e:steps[0]] if steps[0] > 0 else vals[s:(e if e >= 0 else None):steps[0]])
    dims = shape_of(x)
    axes = norm_axes(axes, len(dims))
    begin, end = [], []
    for a, s, e, st in zip(axes, starts, ends, steps, strict=True):
        d = dims[a]
        if not isinstance(d, int):
            raise ctx.error(f"Slice on axis {a} of symbolic length {d} is not supported yet")
        b, en = _slice_bounds(d, s, e, st)
        begin.append(b)
        end.append(en)
    return R.strided_slice(x, axes, begin, end, steps)


@converter("Gather", since=1)
def gather(ctx, node, inputs, attrs):
    x, idx = inputs
    axis = attrs.get("axis", 0)
    if isinstance(x, ShapeExpr):
        i = ctx.const_value(idx)
        if i is not None:
            vals = list(x.values)
            picked = [vals[int(j)] for j in np.asarray(i).reshape(-1)]
            return PrimValue(picked[0]) if np.asarray(i).ndim == 0 else ShapeExpr(picked)
    axis = norm_axis(axis, ndim_of(x))
    dim = shape_of(x)[axis]
    # negative indices count from the end
    idx_v = ctx.const_value(idx)
    if idx_v is not None:
        if (idx_v < 0).any() and isinstance(dim, int):
            idx = const(np.where(idx_v < 0, idx_v + dim, idx_v).astype(idx_v.dtype))
    else:
        d = const(np.array(dim, dtype_of(idx))) if isinstance(dim, int) else \
            R.astype(ctx.emit(R.full((), PrimValue(dim), "int64")), dtype_of(idx))
        idx = ctx.emit(R.where(R.less(idx, const(np.array(0, dtype_of(idx)))), R.add(idx, d), idx))
    return R.take(x, idx, axis=axis)


@converter("GatherElements", since=11)
def gather_elements(ctx, node, inputs, attrs):
    x, idx = inputs
    axis = norm_axis(attrs.get("axis", 0), ndim_of(x))
    dim = shape_of(x)[axis]
    zero = const(np.array(0, dtype_of(idx)))
    d = const(np.array(dim, dtype_of(idx)))
    idx = ctx.emit(R.where(R.less(idx, zero), R.add(idx, d), idx))
    return R.gather_elements(x, idx, axis)


@converter("Expand", since=8)
def expand(ctx, node, inputs, attrs):
    x = inputs[0]
    if not isinstance(inputs[1], ShapeExpr) and ctx.const_value(inputs[1]) is None:
        return expand_runtime(ctx, x, inputs[1])
    target = shape_arg(ctx, inputs[1], "Expand's shape")
    dims = shape_of(x)
    n = max(len(dims), len(target))
    a = [1] * (n - len(dims)) + list(dims)
    b = [1] * (n - len(target)) + list(target)
    out = []
    for da, db in zip(a, b, strict=True):
        if isinstance(db, int) and db == 1:
            out.append(da)
        elif isinstance(da, int) and da == 1:
            out.append(db)
        else:
            out.append(da if isinstance(da, int) else db)
    return R.broadcast_to(x, out)


@converter("Tile", since=6)
def tile(ctx, node, inputs, attrs):
    if ctx.const_value(inputs[1]) is None:
        return tile_runtime(ctx, inputs[0], inputs[1])
    reps = known_ints(ctx, inputs[1], "Tile's repeats")
    return R.tile(inputs[0], reps)

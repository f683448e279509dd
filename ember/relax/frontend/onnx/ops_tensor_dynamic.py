"""Run-time variants of the shape-taking converters: Reshape, Expand, Tile, Slice,
ConstantOfShape and Range when their shape arguments are tensors known only at run time.

Each resolves ONNX's conventions (Reshape's 0 and -1, Expand's broadcasting, Slice's
clamping) with int64 tensor arithmetic, binds the resulting extents to fresh symbolic
dims (``runtime_shape``) and builds the result over those dims.
"""

from __future__ import annotations

import numpy as np

from ember import te, tir

from ... import op as R
from ...expr import const
from .common import dtype_of, ndim_of, shape_of, static_shape
from .shape_values import dims_tensor, runtime_shape

__all__ = ["unsqueeze_runtime", "split_runtime", "reshape_runtime", "expand_runtime", "tile_runtime", "slice_runtime",
           "constant_of_shape_runtime", "range_runtime"]


def _i64(ctx, t):
    return t if dtype_of(t) == "int64" else ctx.emit(R.astype(t, "int64"))


def _c(v):
    return const(np.array(v, "int64"))


def _aligned(ctx, xs, ndim: int, k: int):
    """x's dims (a tensor) cut or padded with leading ones to length ``k``."""
    if k == ndim:
        return xs
    if k < ndim:
        return ctx.emit(R.strided_slice(xs, [0], [ndim - k], [ndim]))
    return ctx.emit(R.concat([_c(np.ones(k - ndim, "int64")), xs], 0))


def reshape_runtime(ctx, x, target, allowzero: bool):
    t = _i64(ctx, target)
    k = static_shape(t)[0]
    ndim = ndim_of(x)
    xs = dims_tensor(ctx, x)
    if not allowzero:
        src = xs if k <= ndim else ctx.emit(R.concat([xs, _c(np.ones(k - ndim, "int64"))], 0))
        if k < ndim:
            src = ctx.emit(R.strided_slice(xs, [0], [0], [k]))
        t = ctx.emit(R.where(R.equal(t, _c(0)), src, t))
    numel = ctx.emit(R.prod(xs, keepdims=False)) if ndim else _c(1)
    known = ctx.emit(R.prod(ctx.emit(R.where(R.equal(t, _c(-1)), R.ones_like(t), t))))
    fill = ctx.emit(R.floor_divide(numel, R.maximum(known, _c(1))))
    t = ctx.emit(R.where(R.equal(t, _c(-1)), R.broadcast_to(fill, [k]), t))
    return R.reshape(x, runtime_shape(ctx, t, "reshape"))


def expand_runtime(ctx, x, target):
    t = _i64(ctx, target)
    k = static_shape(t)[0]
    ndim = ndim_of(x)
    n = max(k, ndim)
    xs = _aligned(ctx, dims_tensor(ctx, x), ndim, n)
    if k < n:
        t = ctx.emit(R.concat([_c(np.ones(n - k, "int64")), t], 0))
    out = ctx.emit(R.where(R.equal(t, _c(1)), xs, t))
    dims = runtime_shape(ctx, out, "expand")
    if ndim < n:
        x = ctx.emit(R.reshape(x, [1] * (n - ndim) + list(shape_of(x))))
    return ctx.bb.call_te(lambda a: te.compute(
        dims, lambda *i: a(*[tir.Select(a.shape[j] == 1, tir.const(0, i[j].dtype), i[j]) for j in range(n)]),
        name="T_expand"), x, primfunc_name_hint="expand")


def tile_runtime(ctx, x, reps):
    out = ctx.emit(R.multiply(dims_tensor(ctx, x), _i64(ctx, reps)))
    dims = runtime_shape(ctx, out, "tile")
    return ctx.bb.call_te(lambda a: te.compute(
        dims, lambda *i: a(*[tir.floormod(i[j], a.shape[j]) for j in range(len(dims))]), name="T_tile"),
        x, primfunc_name_hint="tile")


def slice_runtime(ctx, x, starts, ends, axes, steps):
    """Slice with any of starts/ends/axes/steps known only at run time (1-D tensors of one length)."""
    ndim = ndim_of(x)
    starts, ends = _i64(ctx, starts), _i64(ctx, ends)
    k = static_shape(starts)[0]
    axes = _i64(ctx, axes) if axes is not None else _c(np.arange(k))
    steps = _i64(ctx, steps) if steps is not None else _c(np.ones(k, "int64"))
    axes = ctx.emit(R.where(R.less(axes, _c(0)), R.add(axes, _c(ndim)), axes))
    onehot = ctx.emit(R.astype(R.equal(R.reshape(axes, [k, 1]), _c(np.arange(ndim).reshape(1, ndim))), "int64"))
    xs = dims_tensor(ctx, x)
    d = ctx.emit(R.sum(ctx.emit(R.multiply(onehot, R.reshape(xs, [1, ndim]))), [1]))
    s = ctx.emit(R.where(R.less(starts, _c(0)), R.add(starts, d), starts))
    e = ctx.emit(R.where(R.less(ends, _c(0)), R.add(ends, d), ends))
    pos = ctx.emit(R.greater(steps, _c(0)))
    lo = ctx.emit(R.where(pos, _c(0), _c(-1)))
    hi = ctx.emit(R.where(pos, d, R.subtract(d, _c(1))))
    s = ctx.emit(R.minimum(R.maximum(s, lo), hi))
    e = ctx.emit(R.minimum(R.maximum(e, lo), hi))
    mag = ctx.emit(R.abs(steps))
    span = ctx.emit(R.where(pos, R.subtract(e, s), R.subtract(s, e)))
    length = ctx.emit(R.maximum(R.floor_divide(R.add(span, R.subtract(mag, _c(1))), mag), _c(0)))
    covered = ctx.emit(R.sum(onehot, [0]))
    begin_full = ctx.emit(R.sum(ctx.emit(R.multiply(onehot, R.reshape(s, [k, 1]))), [0]))
    step_full = ctx.emit(R.add(R.sum(ctx.emit(R.multiply(onehot, R.reshape(steps, [k, 1]))), [0]),
                               R.subtract(_c(1), covered)))
    len_full = ctx.emit(R.add(R.sum(ctx.emit(R.multiply(onehot, R.reshape(length, [k, 1]))), [0]),
                              R.multiply(R.subtract(_c(1), covered), xs)))
    dims = runtime_shape(ctx, len_full, "slice")
    return ctx.bb.call_te(lambda a, b, st: te.compute(
        dims, lambda *i: a(*[b(j) + i[j] * st(j) for j in range(ndim)]), name="T_slice"),
        x, begin_full, step_full, primfunc_name_hint="slice")


def constant_of_shape_runtime(ctx, shape, value: np.ndarray):
    dims = runtime_shape(ctx, _i64(ctx, shape), "full")
    return R.full(dims, const(value.reshape(())), str(value.dtype))


def range_runtime(ctx, start, limit, delta):
    dtype = dtype_of(start)
    f = lambda t: ctx.emit(R.astype(t, "float64"))  # noqa: E731
    count = ctx.emit(R.ceil(R.divide(ctx.emit(R.subtract(f(limit), f(start))), f(delta))))
    n = ctx.emit(R.maximum(R.astype(count, "int64"), _c(0)))
    dims = runtime_shape(ctx, ctx.emit(R.reshape(n, [1])), "range")
    return ctx.bb.call_te(lambda a, d: te.compute(
        dims, lambda i: a() + i.astype(dtype) * d(), name="T_range"), start, delta,
        primfunc_name_hint="range")


def unsqueeze_runtime(ctx, x, axes):
    """Unsqueeze at run-time axes: the new shape (1 where inserted, x's dims in order
    elsewhere) computed as a tensor, then a reshape to fresh dims."""
    ndim = ndim_of(x)
    k = static_shape(axes)[0]
    n = ndim + k
    ax = _i64(ctx, axes)
    ax = ctx.emit(R.where(R.less(ax, _c(0)), R.add(ax, _c(n)), ax))
    onehot = ctx.emit(R.astype(R.equal(R.reshape(ax, [k, 1]), _c(np.arange(n).reshape(1, n))), "int64"))
    inserted = ctx.emit(R.sum(onehot, [0]))
    kept = ctx.emit(R.subtract(_c(1), inserted))
    source = ctx.emit(R.maximum(R.subtract(R.cumsum(kept, 0), _c(1)), _c(0)))
    xs = dims_tensor(ctx, x) if ndim else _c(np.ones(1, "int64"))
    dims = ctx.emit(R.where(R.equal(inserted, _c(1)), _c(np.ones(n, "int64")), R.take(xs, source, 0)))
    return R.reshape(x, runtime_shape(ctx, dims, "unsqueeze"))


def split_runtime(ctx, x, sizes, axis: int, n: int):
    """Split by sizes known at run time: each part a run-time slice along ``axis``."""
    sizes = _i64(ctx, sizes)
    ends = ctx.emit(R.cumsum(sizes, 0))
    begins = ctx.emit(R.subtract(ends, sizes))
    parts = []
    for i in range(n):
        b = ctx.emit(R.strided_slice(begins, [0], [i], [i + 1]))
        e = ctx.emit(R.strided_slice(ends, [0], [i], [i + 1]))
        parts.append(ctx.emit(slice_runtime(ctx, x, b, e, _c(np.array([axis])), None)))
    return parts

"""View and reshape converters: view/reshape/flatten/unflatten, permute/transpose/t,
expand, (un)squeeze, slice/select/narrow, split/chunk/unbind, cat/stack, repeat/tile,
flip/roll, pixel_shuffle, and the copies that are identities here (clone, contiguous,
alias, detach).  Relax tensors are values, so every view is a copy-free reshape or a slice."""

from __future__ import annotations

from ember.ir import PrimExpr
from ember.relax import op as R
from ember.relax.expr import PrimValue

from .registry import converter

_BIG = 2**62


@converter("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.view_copy.default",
           "aten._reshape_alias.default")
def view(ctx, x, shape, *_):
    shape = list(shape)
    if shape.count(-1) == 1 and any(isinstance(s, PrimExpr) for s in shape):
        shape = _fill_minus_one(ctx, x, shape)
    return R.reshape(x, shape)


def _fill_minus_one(ctx, x, shape):
    total = 1
    for d in ctx.shape(x):
        total = total * d
    known = 1
    for s in shape:
        if not (isinstance(s, int) and s == -1):
            known = known * s
    return [total // known if (isinstance(s, int) and s == -1) else s for s in shape]


@converter("aten.flatten.using_ints")
def flatten(ctx, x, start_dim=0, end_dim=-1):
    shape = ctx.shape(x)
    if not shape:
        return R.reshape(x, [1])
    s, e = ctx.norm_axis(start_dim, len(shape)), ctx.norm_axis(end_dim, len(shape))
    merged = 1
    for d in shape[s:e + 1]:
        merged = merged * d
    return R.reshape(x, shape[:s] + [merged] + shape[e + 1:])


@converter("aten.unflatten.int")
def unflatten(ctx, x, dim, sizes):
    shape = ctx.shape(x)
    dim = ctx.norm_axis(dim, len(shape))
    sizes = list(sizes)
    if -1 in sizes:
        known = 1
        for s in sizes:
            if s != -1:
                known = known * s
        sizes[sizes.index(-1)] = shape[dim] // known
    return R.reshape(x, shape[:dim] + sizes + shape[dim + 1:])


@converter("aten.permute.default", "aten.permute_copy.default")
def permute(ctx, x, dims):
    n = ctx.ndim(x)
    return R.permute_dims(x, [ctx.norm_axis(d, n) for d in dims])


@converter("aten.transpose.int", "aten.swapaxes.default", "aten.transpose_copy.int")
def transpose(ctx, x, d0, d1):
    n = ctx.ndim(x)
    axes = list(range(n))
    d0, d1 = ctx.norm_axis(d0, n), ctx.norm_axis(d1, n)
    axes[d0], axes[d1] = axes[d1], axes[d0]
    return R.permute_dims(x, axes)


@converter("aten.t.default", "aten.numpy_T.default")
def t(ctx, x):
    return x if ctx.ndim(x) < 2 else R.permute_dims(x, list(range(ctx.ndim(x)))[::-1])


@converter("aten.expand.default", "aten.expand_copy.default", "aten.broadcast_to.default")
def expand(ctx, x, size, *_):
    shape = ctx.shape(x)
    size = list(size)
    lead = len(size) - len(shape)
    out = [shape[i - lead] if (isinstance(s, int) and s == -1) else s for i, s in enumerate(size)]
    if out == shape:
        return x
    return R.broadcast_to(x, out)


@converter("aten.expand_as.default")
def expand_as(ctx, x, other):
    return R.broadcast_to(x, ctx.shape(other))


@converter("aten.unsqueeze.default", "aten.unsqueeze_copy.default")
def unsqueeze(ctx, x, dim):
    return R.expand_dims(x, dim + ctx.ndim(x) + 1 if dim < 0 else dim)


@converter("aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze_copy.dims")
def squeeze(ctx, x, dim=None):
    shape = ctx.shape(x)
    dims = [dim] if isinstance(dim, int) else list(dim) if dim is not None else None
    if dims is None:
        axes = [i for i, d in enumerate(shape) if isinstance(d, int) and d == 1]
    else:
        axes = [ctx.norm_axis(d, len(shape)) for d in dims]
        axes = [a for a in axes if isinstance(shape[a], int) and shape[a] == 1]
    return R.squeeze(x, axes) if axes else x


@converter("aten.clone.default", "aten.contiguous.default", "aten.alias.default", "aten.detach.default",
           "aten.lift_fresh_copy.default", "aten.lift_fresh.default", "aten.detach_.default",
           "aten.alias_copy.default", "aten.dropout.default", "aten.dropout_.default",
           "aten.feature_dropout.default", "aten.alpha_dropout.default", "aten.feature_alpha_dropout.default",
           "aten.resolve_conj.default", "aten.resolve_neg.default", "aten.positive.default",
           "aten.clone.memory_format")
def identity(ctx, x, *_):
    return x


@converter("aten.native_dropout.default")
def native_dropout(ctx, x, p, train=None):
    return [x, ctx.emit(R.ones_like(x, "bool"))]


def _slice_bounds(dim_size, start, end, step):
    start = 0 if start is None else start
    end = _BIG if end is None else end
    if isinstance(dim_size, int):
        if isinstance(start, int) and start < 0:
            start += dim_size
        if isinstance(end, int) and end < 0:
            end += dim_size
        if isinstance(start, int):
            start = min(max(start, 0), dim_size)
        if isinstance(end, int):
            end = min(max(end, 0), dim_size)
    return start, end, step


@converter("aten.slice.Tensor", "aten.slice_copy.Tensor")
def slice_(ctx, x, dim=0, start=None, end=None, step=1):
    shape = ctx.shape(x)
    axis = ctx.norm_axis(dim, len(shape))
    start, end, step = _slice_bounds(shape[axis], start, end, 1 if step is None else step)
    whole_end = isinstance(end, int) and (end >= _BIG // 2 or (isinstance(shape[axis], int) and end >= shape[axis]))
    if start == 0 and step == 1 and (whole_end or end is shape[axis]):
        return x
    if isinstance(start, int) and isinstance(end, int):
        if isinstance(shape[axis], int):
            return R.strided_slice(x, [axis], [start], [end], [step])
        if start >= 0 and 0 <= end < _BIG // 2:  # constant window of a symbolic dim
            return R.take(x, ctx.const(list(range(start, end, step)), "int64"), axis)
    if whole_end:
        end = shape[axis]
    if isinstance(start, int) and start < 0:
        start = shape[axis] + start
    idx = ctx.emit(R.arange(_prim(start), _prim(end), step, "int64"))
    return R.take(x, idx, axis)


def _prim(v):
    return PrimValue(v) if isinstance(v, PrimExpr) else v


@converter("aten.narrow.default")
def narrow(ctx, x, dim, start, length):
    return slice_(ctx, x, dim, start, start + length, 1)


@converter("aten.select.int", "aten.select_copy.int")
def select(ctx, x, dim, index):
    shape = ctx.shape(x)
    axis = ctx.norm_axis(dim, len(shape))
    if isinstance(index, int) and index < 0:
        index += shape[axis]
    if isinstance(index, int) and isinstance(shape[axis], int):
        part = ctx.emit(R.strided_slice(x, [axis], [index], [index + 1]))
    elif isinstance(index, int) and index >= 0:
        part = ctx.emit(R.take(x, ctx.const([index], "int64"), axis))
    else:
        part = ctx.emit(R.take(x, ctx.emit(R.arange(_prim(index), _prim(index + 1), 1, "int64")), axis))
    return R.squeeze(part, [axis])


@converter("aten.split.Tensor", "aten.split_with_sizes.default", "aten.split_copy.Tensor",
           "aten.split_with_sizes_copy.default", "aten.split.sizes")
def split(ctx, x, size, dim=0):
    shape = ctx.shape(x)
    axis = ctx.norm_axis(dim, len(shape))
    n = shape[axis]
    if isinstance(size, list | tuple):
        sizes = list(size)
    else:
        sizes = [size] * (n // size) + ([n % size] if n % size else [])
    if len(sizes) == 1:
        return [x]
    indices, acc = [], 0
    for s in sizes[:-1]:
        acc += s
        indices.append(acc)
    out = ctx.emit(R.split(x, indices, axis))
    return [ctx.tuple_item(out, i) for i in range(len(sizes))]


@converter("aten.chunk.default")
def chunk(ctx, x, chunks, dim=0):
    n = ctx.shape(x)[ctx.norm_axis(dim, ctx.ndim(x))]
    size = -(-n // chunks)
    return split(ctx, x, size, dim)


@converter("aten.unbind.int", "aten.unbind_copy.int")
def unbind(ctx, x, dim=0):
    axis = ctx.norm_axis(dim, ctx.ndim(x))
    parts = split(ctx, x, 1, axis)
    return [ctx.emit(R.squeeze(p, [axis])) for p in parts]


@converter("aten.cat.default", "aten.concat.default", "aten.concatenate.default")
def cat(ctx, tensors, dim=0):
    dtype = ctx.out_dtype()
    tensors = [ctx.operand(t, dtype) for t in tensors
               if not (ctx.ndim(t) == 1 and ctx.shape(t) == [0])]
    if len(tensors) == 1:
        return tensors[0]
    return R.concat(tensors, ctx.norm_axis(dim, ctx.ndim(tensors[0])))


@converter("aten.stack.default")
def stack(ctx, tensors, dim=0):
    dtype = ctx.out_dtype()
    axis = dim + ctx.ndim(tensors[0]) + 1 if dim < 0 else dim
    parts = [ctx.emit(R.expand_dims(ctx.operand(t, dtype), axis)) for t in tensors]
    return parts[0] if len(parts) == 1 else R.concat(parts, axis)


@converter("aten.repeat.default", "aten.tile.default")
def repeat(ctx, x, repeats):
    return R.tile(x, list(repeats))


@converter("aten.repeat_interleave.self_int")
def repeat_interleave(ctx, x, repeats, dim=None, output_size=None):
    if dim is None:
        x, dim = ctx.emit(R.reshape(x, [-1])), 0
    return R.repeat(x, int(repeats), ctx.norm_axis(dim, ctx.ndim(x)))


@converter("aten.flip.default")
def flip(ctx, x, dims):
    for d in dims:
        x = ctx.emit(R.flip(x, ctx.norm_axis(d, ctx.ndim(x))))
    return x


@converter("aten.roll.default")
def roll(ctx, x, shifts, dims=()):
    shifts = list(shifts) if isinstance(shifts, list | tuple) else [shifts]
    dims = list(dims) if isinstance(dims, list | tuple) else [dims]
    if not dims:
        shape = ctx.shape(x)
        flat = ctx.emit(R.reshape(x, [-1]))
        return R.reshape(ctx.emit(roll(ctx, flat, shifts, [0])), shape)
    for shift, d in zip(shifts, dims):
        axis = ctx.norm_axis(d, ctx.ndim(x))
        n = ctx.shape(x)[axis]
        shift %= n
        if shift:
            tail = ctx.emit(R.strided_slice(x, [axis], [n - shift], [n]))
            head = ctx.emit(R.strided_slice(x, [axis], [0], [n - shift]))
            x = ctx.emit(R.concat([tail, head], axis))
    return x


@converter("aten.pixel_shuffle.default")
def pixel_shuffle(ctx, x, r):
    b, c, h, w = ctx.shape(x)
    oc = c // (r * r)
    x = ctx.emit(R.reshape(x, [b, oc, r, r, h, w]))
    x = ctx.emit(R.permute_dims(x, [0, 1, 4, 2, 5, 3]))
    return R.reshape(x, [b, oc, h * r, w * r])


@converter("aten.pixel_unshuffle.default")
def pixel_unshuffle(ctx, x, r):
    b, c, h, w = ctx.shape(x)
    x = ctx.emit(R.reshape(x, [b, c, h // r, r, w // r, r]))
    x = ctx.emit(R.permute_dims(x, [0, 1, 3, 5, 2, 4]))
    return R.reshape(x, [b, c * r * r, h // r, w // r])


@converter("aten.movedim.int")
def movedim(ctx, x, source, destination):
    n = ctx.ndim(x)
    src, dst = ctx.norm_axis(source, n), ctx.norm_axis(destination, n)
    order = [i for i in range(n) if i != src]
    order.insert(dst, src)
    return R.permute_dims(x, order)


@converter("aten.slice_scatter.default")
def slice_scatter(ctx, x, src, dim=0, start=None, end=None, step=1):
    """``x`` with ``x[..., start:end:step, ...] = src`` along ``dim``."""
    shape = ctx.shape(x)
    axis = ctx.norm_axis(dim, len(shape))
    n = shape[axis]
    if not isinstance(n, int):
        raise NotImplementedError("slice_scatter along a symbolic dim")
    start, end, step = _slice_bounds(n, start, end, 1 if step is None else step)
    src = ctx.operand(src, ctx.dtype(x))
    if step == 1:
        parts = []
        if start > 0:
            parts.append(ctx.emit(R.strided_slice(x, [axis], [0], [start])))
        parts.append(src)
        if end < n:
            parts.append(ctx.emit(R.strided_slice(x, [axis], [end], [n])))
        return parts[0] if len(parts) == 1 else R.concat(parts, axis)
    positions = list(range(start, end, step))
    idx = ctx.const(positions, "int64")
    sshape = ctx.shape(src)
    idx = ctx.emit(R.reshape(idx, [1] * axis + [len(positions)] + [1] * (len(shape) - axis - 1)))
    return R.scatter_elements(x, ctx.emit(R.broadcast_to(idx, sshape)), src, axis)


@converter("aten.select_scatter.default")
def select_scatter(ctx, x, src, dim, index):
    axis = ctx.norm_axis(dim, ctx.ndim(x))
    n = ctx.shape(x)[axis]
    index = index + n if index < 0 else index
    return slice_scatter(ctx, x, ctx.emit(R.expand_dims(src, axis)), axis, index, index + 1, 1)

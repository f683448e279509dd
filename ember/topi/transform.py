"""Data-movement operators: transpose, reshape, expand_dims, squeeze, concatenate, split,
strided_slice, take, gather, where, stack, flip, tile, repeat, arange.

Each is one ``te.compute`` per output (named ``T_<op>`` like TVM's topi) that maps an
output position to the input element it copies.  Choices between inputs use
``if_then_else`` so only the taken input is read.
"""

from __future__ import annotations

from ember import te
from ember.ir import IntImm, as_expr, const
from ember.tir import op as tir_op

from .broadcast import broadcast_index, broadcast_shape
from .utils import as_shape, compute_ax, get_const_int, is_const_int, normalize_axis, prod

__all__ = [
    "transpose", "reshape", "expand_dims", "squeeze", "concatenate", "split", "strided_slice",
    "take", "gather", "where", "stack", "flip", "tile", "repeat", "arange",
]


def transpose(a, axes=None) -> te.Tensor:
    """``a`` with its dimensions permuted (reversed when ``axes`` is None)."""
    nd = a.ndim
    perm = list(range(nd))[::-1] if axes is None else [int(x) + nd if int(x) < 0 else int(x) for x in axes]
    if sorted(perm) != list(range(nd)):
        raise ValueError(f"topi.transpose: axes {list(axes)} is not a permutation of {nd} dimensions")
    shape = tuple(a.shape[p] for p in perm)

    def f(*idx):
        src = [None] * nd
        for out_dim, p in enumerate(perm):
            src[p] = idx[out_dim]
        return a(*src)

    return compute_ax(shape, f, "T_transpose", tag="injective")


def _ravel(indices, shape):
    flat = None
    for i, dim in zip(indices, shape):
        flat = i if flat is None else flat * dim + i
    return flat if flat is not None else const(0, "int32")


def _unravel(flat, shape):
    out = []
    for dim in reversed(shape):
        out.append(flat if len(out) == len(shape) - 1 else tir_op.floormod(flat, dim))
        flat = tir_op.floordiv(flat, dim)
    return list(reversed(out))


def _infer_shape(a, newshape):
    shape = list(newshape)
    if any(is_const_int(s, -1) for s in shape):
        known = [s for s in shape if not is_const_int(s, -1)]
        total = get_const_int(prod(a.shape))
        rest = get_const_int(prod(known)) if known else 1
        shape = [IntImm(a.shape[0].dtype if a.shape else as_expr(0).dtype, total // rest)
                 if is_const_int(s, -1) else s for s in shape]
    return tuple(as_expr(s) for s in shape)


def reshape(a, newshape) -> te.Tensor:
    """``a`` with a new shape of the same element count (one ``-1`` may be inferred)."""
    shape = _infer_shape(a, as_shape(newshape))
    old, new = prod(a.shape), prod(shape)
    if isinstance(old, IntImm) and isinstance(new, IntImm) and old.value != new.value:
        raise ValueError(
            f"topi.reshape: cannot reshape {old.value} elements {tuple(int(getattr(s, 'value', -1)) for s in a.shape)} "
            f"into shape {tuple(int(getattr(s, 'value', -1)) for s in shape)} ({new.value} elements)"
        )
    if not a.shape:
        return compute_ax(shape, lambda *i: a(), "T_reshape", tag="injective")
    # leading dimensions kept as they are, when symbolic, are indexed directly: flattening
    # them would leave a div/mod by a symbolic extent per element ((b*s + i) // s)
    from ember.ir import structural_equal

    keep = 0
    while (keep < min(len(shape), len(a.shape)) - 1
           and structural_equal(shape[keep], a.shape[keep], map_free_vars=False)):
        keep += 1
    if not any(not isinstance(d, IntImm) for d in shape[:keep]):
        keep = 0
    return compute_ax(shape, lambda *i: a(*i[:keep], *_unravel(_ravel(i[keep:], shape[keep:]), a.shape[keep:])),
                      "T_reshape", tag="injective")


def expand_dims(a, axis: int, num_newaxis: int = 1) -> te.Tensor:
    """``a`` with ``num_newaxis`` dimensions of extent 1 inserted at ``axis``."""
    nd = a.ndim
    if not -nd - 1 <= axis <= nd:
        raise ValueError(f"topi.expand_dims: axis {axis} is out of range for {nd} dimension(s)")
    axis = axis + nd + 1 if axis < 0 else axis
    shape = a.shape[:axis] + tuple(IntImm(_index_dtype(a), 1) for _ in range(num_newaxis)) + a.shape[axis:]
    return compute_ax(shape, lambda *i: a(*(i[:axis] + i[axis + num_newaxis:])), "T_expand_dims", tag="broadcast")


def _index_dtype(a):
    return a.shape[0].dtype if a.shape else as_expr(0).dtype


def squeeze(a, axis=None) -> te.Tensor:
    """``a`` without the given (or all) extent-1 dimensions."""
    if axis is None:
        drop = [d for d, s in enumerate(a.shape) if is_const_int(s, 1)]
    else:
        drop = normalize_axis(axis, a.ndim)
        for d in drop:
            if not is_const_int(a.shape[d], 1):
                raise ValueError(f"topi.squeeze: dimension {d} has extent {a.shape[d]}, not 1")
    keep = [d for d in range(a.ndim) if d not in drop]
    shape = tuple(a.shape[d] for d in keep)

    def f(*idx):
        src = [IntImm(a.shape[d].dtype, 0) for d in range(a.ndim)]
        for d, i in zip(keep, idx):
            src[d] = i
        return a(*src)

    return compute_ax(shape, f, "T_squeeze", tag="injective")


def concatenate(tensors, axis: int = 0) -> te.Tensor:
    """The tensors joined along ``axis``."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("topi.concatenate: needs at least one tensor")
    nd = tensors[0].ndim
    (axis,) = normalize_axis(axis, nd)
    for t in tensors[1:]:
        if t.ndim != nd:
            raise ValueError(f"topi.concatenate: all tensors need {nd} dimensions, {t.name!r} has {t.ndim}")
    dims = [t.shape[axis] for t in tensors]
    offsets, running = [], as_expr(0, dims[0].dtype)  # offsets count from 0 (0 + d0, 0 + d0 + d1 …)
    for d in dims:
        offsets.append(running)
        running = running + d
    total = dims[0]
    for d in dims[1:]:
        total = total + d
    shape = tensors[0].shape[:axis] + (total,) + tensors[0].shape[axis + 1:]

    def f(*idx):
        # as TVM's topi writes it: the first tensor innermost, each later one taking over
        # from its offset on (if_then_else(off_k <= i, x_k[i - off_k], ...))
        i = idx[axis]
        value = tensors[0](*idx)
        for t, off in zip(tensors[1:], offsets[1:]):
            load = t(*(idx[:axis] + (i - off,) + idx[axis + 1:]))
            value = tir_op.if_then_else(off <= i, load, value)
        return value

    return compute_ax(shape, f, "T_concat", tag="injective")


def split(a, indices_or_sections, axis: int = 0) -> list:
    """``a`` cut along ``axis`` into equal sections or at the given indices."""
    (axis,) = normalize_axis(axis, a.ndim)
    dim = a.shape[axis]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        size = get_const_int(dim)
        if size % n:
            raise ValueError(f"topi.split: extent {size} of axis {axis} is not divisible into {n} sections")
        points = [size // n * k for k in range(1, n)]
    else:
        points = [int(p) for p in indices_or_sections]
    bounds = [0] + points + [dim]
    outs = []
    for begin, end in zip(bounds[:-1], bounds[1:]):
        extent = as_expr(end, dim.dtype) - begin  # in the dim's own dtype (int64 shapes stay int64)
        shape = a.shape[:axis] + (extent,) + a.shape[axis + 1:]
        outs.append(compute_ax(
            shape,
            lambda *idx, b=begin: a(*(idx[:axis] + (idx[axis] + b if b else idx[axis],) + idx[axis + 1:])),
            "T_split", tag="injective",
        ))
    return outs


def _slice_dim(begin, end, stride, dim):
    """Clamp one python slice like numpy; returns (start, extent)."""
    start, stop, step = slice(begin, end, stride).indices(dim)
    extent = max(0, (stop - start + (step - (1 if step > 0 else -1))) // step)
    return start, extent


def strided_slice(a, begin, end, strides=None, axes=None, slice_mode: str = "end") -> te.Tensor:
    """``a[begin:end:strides]`` per axis (numpy clamping; static extents)."""
    axes = list(range(len(begin))) if axes is None else normalize_axis(axes, a.ndim)
    strides = list(strides) if strides is not None else [1] * len(axes)
    starts = [0] * a.ndim
    steps = [1] * a.ndim
    shape = list(a.shape)
    for k, d in enumerate(axes):
        dim = get_const_int(a.shape[d])
        b = int(begin[k])
        s = int(strides[k]) if k < len(strides) else 1
        e = int(end[k]) if k < len(end) else (dim if s > 0 else -dim - 1)
        if slice_mode == "size":
            e = dim if e < 0 else b + e
        if s == 0:
            raise ValueError(f"topi.strided_slice: stride of axis {d} must not be 0")
        start, extent = _slice_dim(b, e, s, dim)
        starts[d], steps[d] = start, s
        shape[d] = IntImm(a.shape[d].dtype, extent)

    def f(*idx):
        return a(*[i * st + s0 if (st != 1 or s0) else i for i, st, s0 in zip(idx, steps, starts)])

    return compute_ax(tuple(shape), f, "T_strided_slice", tag="injective")


def _clamp_index(i, dim, mode):
    i = i if i.dtype is dim.dtype else tir_op.cast(i, dim.dtype)
    if mode == "clip":
        return tir_op.min(tir_op.max(i, 0), dim - 1)
    if mode == "wrap":
        return tir_op.floormod(i, dim)
    if mode == "fast":
        return i
    raise ValueError(f"topi.take: mode must be 'clip', 'wrap' or 'fast', got {mode!r}")


def take(a, indices, axis=None, batch_dims: int = 0, mode: str = "clip") -> te.Tensor:
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` when None)."""
    if axis is None:
        a = reshape(a, (prod(a.shape),))
        axis = 0
    (axis,) = normalize_axis(axis, a.ndim)
    dim = a.shape[axis]
    if not isinstance(indices, te.Tensor):
        idx_expr = as_expr(indices)
        shape = a.shape[:axis] + a.shape[axis + 1:]
        return compute_ax(
            shape, lambda *i: a(*(i[:axis] + (_clamp_index(idx_expr, dim, mode),) + i[axis:])),
            "T_take", tag="injective",
        )
    n = indices.ndim
    shape = a.shape[:axis] + indices.shape + a.shape[axis + 1:]

    def f(*i):
        pos = _clamp_index(indices(*i[axis:axis + n]), dim, mode)
        return a(*(i[:axis] + (pos,) + i[axis + n:]))

    return compute_ax(shape, f, "T_take", tag="injective")


def gather(data, axis: int, indices) -> te.Tensor:
    """``out[i..] = data[i.. with indices[i..] on axis]`` (numpy take_along_axis)."""
    (axis,) = normalize_axis(axis, data.ndim)

    def f(*i):
        pos = indices(*i)
        pos = pos if pos.dtype is data.shape[axis].dtype else tir_op.cast(pos, data.shape[axis].dtype)
        return data(*(i[:axis] + (pos,) + i[axis + 1:]))

    return compute_ax(indices.shape, f, "T_gather", tag="injective")


def where(condition, x, y) -> te.Tensor:
    """``x`` where ``condition`` holds, else ``y``, with broadcasting."""
    from .broadcast import _scalar

    parts = [condition, x, y]
    ref = next((p for p in (x, y) if isinstance(p, te.Tensor)), None)
    shape = ()
    for p in parts:
        if isinstance(p, te.Tensor):
            shape = broadcast_shape(shape, p.shape, "topi.where")

    def get(p, idx, dtype=None):
        if isinstance(p, te.Tensor):
            return p(*broadcast_index(p, idx))
        return _scalar(p, dtype) if dtype is not None else as_expr(p)

    def f(*idx):
        c = get(condition, idx)
        c = c if c.dtype.is_bool else c != 0
        dtype = ref.dtype if ref is not None else None
        a, b = get(x, idx, dtype), get(y, idx, dtype)
        return tir_op.Select(c, a, b)

    return compute_ax(shape, f, "T_where", tag="broadcast")


def stack(tensors, axis: int = 0) -> te.Tensor:
    """The tensors stacked along a new ``axis``."""
    tensors = list(tensors)
    nd = tensors[0].ndim + 1
    (axis,) = normalize_axis(axis, nd)
    shape = tensors[0].shape[:axis] + (IntImm(_index_dtype(tensors[0]), len(tensors)),) + tensors[0].shape[axis:]

    def f(*idx):
        rest = idx[:axis] + idx[axis + 1:]
        value = tensors[-1](*rest)
        for k in range(len(tensors) - 2, -1, -1):
            value = tir_op.if_then_else(idx[axis] == k, tensors[k](*rest), value)
        return value

    return compute_ax(shape, f, "T_stack", tag="injective")


def flip(a, axis: int = 0) -> te.Tensor:
    """``a`` reversed along ``axis``."""
    (axis,) = normalize_axis(axis, a.ndim)
    return compute_ax(
        a.shape, lambda *i: a(*(i[:axis] + (a.shape[axis] - 1 - i[axis],) + i[axis + 1:])),
        "T_reverse_sequence", tag="injective",
    )


def tile(a, reps) -> te.Tensor:
    """``a`` repeated ``reps[d]`` times along each dimension (numpy tile)."""
    reps = [int(r) for r in reps]
    nd = max(a.ndim, len(reps))
    reps = [1] * (nd - len(reps)) + reps
    base = (IntImm(_index_dtype(a), 1),) * (nd - a.ndim) + a.shape
    shape = tuple(d * r for d, r in zip(base, reps))
    skip = nd - a.ndim
    return compute_ax(shape, lambda *i: a(*[tir_op.floormod(x, d) for x, d in zip(i[skip:], a.shape)]),
                      "T_tile", tag="injective")


def repeat(a, repeats: int, axis: int) -> te.Tensor:
    """Each element of ``a`` repeated ``repeats`` times along ``axis``."""
    (axis,) = normalize_axis(axis, a.ndim)
    shape = a.shape[:axis] + (a.shape[axis] * repeats,) + a.shape[axis + 1:]
    return compute_ax(shape, lambda *i: a(*(i[:axis] + (tir_op.floordiv(i[axis], repeats),) + i[axis + 1:])),
                      "T_repeat", tag="injective")


def arange(start, stop=None, step=1, dtype="float32") -> te.Tensor:
    """``[start, start + step, …)`` up to ``stop`` (static bounds)."""
    if stop is None:
        start, stop = 0, start
    import math

    n = max(0, math.ceil((float(stop) - float(start)) / float(step)))
    return compute_ax((n,), lambda i: tir_op.cast(i, dtype) * const(step, dtype) + const(start, dtype),
                      "T_arange", tag="elemwise")



def one_hot(indices, on_value, off_value, depth: int, axis: int, dtype) -> te.Tensor:
    """``on_value`` where the new ``axis`` position equals the index, else ``off_value``."""
    nd = indices.ndim + 1
    axis = axis + nd if axis < 0 else axis
    shape = indices.shape[:axis] + (IntImm(_index_dtype(indices), depth),) + indices.shape[axis:]
    on, off = tir_op.cast(as_expr(on_value), dtype), tir_op.cast(as_expr(off_value), dtype)

    def f(*i):
        idx = indices(*(i[:axis] + i[axis + 1:]))
        pos = i[axis] if i[axis].dtype is idx.dtype else tir_op.cast(i[axis], idx.dtype)
        return tir_op.Select(idx == pos, on, off)

    return compute_ax(shape, f, "T_one_hot", tag="injective")


def trilu(data, k, upper: bool) -> te.Tensor:
    """The upper (``j - i >= k``) or lower (``j - i <= k``) triangle of the last two dims."""
    k = as_expr(k)

    def f(*i):
        row, col = i[-2], i[-1]
        keep = (col - row >= k) if upper else (col - row <= k)
        return tir_op.Select(keep, data(*i), const(0, data.dtype))

    return compute_ax(data.shape, f, "T_trilu", tag="elemwise")


def matmul(a, b, transp_a: bool = False, transp_b: bool = False) -> te.Tensor:
    """2-D matrix product (``topi.matmul``); see ``topi.nn.matmul`` for bias and out_dtype."""
    from .nn.dense import matmul as nn_matmul

    return nn_matmul(a, b, transpose_a=transp_a, transpose_b=transp_b)


__all__ += ["one_hot", "trilu", "matmul"]

"""Indexing converters: advanced indexing (``x[idx]``, ``x[:, i, j]``), index_select,
gather, scatter (src / value / add / reduce), index_put along one axis, masked_scatter, take,
embedding, one_hot."""

from __future__ import annotations

from ember.relax import op as R

from .registry import converter


@converter("aten.index.Tensor", "aten._unsafe_index.Tensor")
def index(ctx, x, indices):
    ndim = ctx.ndim(x)
    positions = [i for i, idx in enumerate(indices) if idx is not None]
    for i in positions:
        if ctx.dtype(indices[i]) == "bool":
            raise NotImplementedError("boolean-mask indexing has a data-dependent shape")
    if len(positions) == 1:
        (k,) = positions
        return R.take(x, ctx.operand(indices[k], "int64"), k, "wrap")
    if positions != list(range(positions[0], positions[-1] + 1)):
        raise NotImplementedError("advanced indices separated by slices are not supported")
    first, count = positions[0], len(positions)
    idx = [ctx.operand(indices[i], "int64") for i in positions]
    bshape = _broadcast_shape([ctx.shape(t) for t in idx])
    idx = [ctx.emit(R.broadcast_to(t, bshape)) if ctx.shape(t) != bshape else t for t in idx]
    shape = ctx.shape(x)
    wrapped = [ctx.emit(R.floor_mod(t, ctx.operand(shape[p], "int64"))) for t, p in zip(idx, positions)]
    stacked = ctx.emit(R.concat([ctx.emit(R.expand_dims(t, len(bshape))) for t in wrapped], len(bshape)))
    order = positions + [i for i in range(ndim) if i not in positions]
    xt = x if order == list(range(ndim)) else ctx.emit(R.permute_dims(x, order))
    out = ctx.emit(R.gather_nd(xt, stacked))  # [bshape..., dims before first..., dims after...]
    if first == 0:
        return out
    nb = len(bshape)
    perm = list(range(nb, nb + first)) + list(range(nb)) + list(range(nb + first, nb + ndim - count))
    return R.permute_dims(out, perm)


def _broadcast_shape(shapes):
    n = max(len(s) for s in shapes)
    out = []
    for i in range(n):
        dim = 1
        for s in shapes:
            j = i - (n - len(s))
            if j >= 0 and not (isinstance(s[j], int) and s[j] == 1):
                dim = s[j]
        out.append(dim)
    return out


@converter("aten.index_select.default")
def index_select(ctx, x, dim, idx):
    return R.take(x, ctx.operand(idx, "int64"), ctx.norm_axis(dim, ctx.ndim(x)), "wrap")


@converter("aten.masked_scatter.default", "aten.masked_scatter_.default")
def masked_scatter(ctx, x, mask, source):
    """Where ``mask`` holds, the next element of ``source`` (row-major order) replaces x's:
    the k-th True position takes source.flatten()[k] (a running count of the mask)."""
    shape = ctx.shape(x)
    mask = ctx.emit(R.broadcast_to(mask, shape)) if ctx.shape(mask) != shape else mask
    count = ctx.emit(R.cumsum(ctx.emit(R.reshape(mask, [-1])), 0, "int64", True))
    flat_src = ctx.emit(R.reshape(ctx.operand(source, ctx.dtype(x)), [-1]))
    picked = ctx.emit(R.reshape(ctx.emit(R.take(flat_src, count, 0, "clip")), shape))
    return R.where(mask, picked, x)


@converter("aten.take.default")
def take(ctx, x, idx):
    """``torch.take``: indices into the flattened tensor (negative ones count from the end)."""
    flat = ctx.emit(R.reshape(x, [-1]))
    return R.take(flat, ctx.operand(idx, "int64"), 0, "wrap")


@converter("aten.embedding.default")
def embedding(ctx, weight, indices, padding_idx=-1, scale_grad=False, sparse=False):
    return R.take(weight, ctx.operand(indices, "int64"), 0)


@converter("aten.gather.default")
def gather(ctx, x, dim, idx, sparse_grad=False):
    return R.gather_elements(x, ctx.operand(idx, "int64"), ctx.norm_axis(dim, ctx.ndim(x)))


_REDUCE = {None: "update", "add": "add", "sum": "add", "multiply": "mul", "prod": "mul", "amax": "max",
           "amin": "min"}


@converter("aten.scatter.src", "aten.scatter.value", "aten.scatter_.src", "aten.scatter_.value",
           "aten.scatter.reduce", "aten.scatter.value_reduce", "aten.scatter_add.default",
           "aten.scatter_add_.default")
def scatter(ctx, x, dim, idx, src, reduce=None):
    if "scatter_add" in str(ctx.node.target):
        reduce = "add"
    if not hasattr(src, "struct_info"):
        src = ctx.emit(R.full(ctx.shape(idx), ctx.const(src, ctx.dtype(x)), ctx.dtype(x)))
    elif ctx.shape(src) != ctx.shape(idx):
        src = ctx.emit(R.strided_slice(src, list(range(ctx.ndim(idx))), [0] * ctx.ndim(idx), ctx.shape(idx)))
    if reduce not in _REDUCE:
        raise NotImplementedError(f"scatter reduce={reduce!r} (supported: add, multiply)")
    return R.scatter_elements(x, ctx.operand(idx, "int64"), ctx.operand(src, ctx.dtype(x)),
                              ctx.norm_axis(dim, ctx.ndim(x)), _REDUCE[reduce])


@converter("aten.scatter_reduce.two", "aten.scatter_reduce_.two")
def scatter_reduce(ctx, x, dim, idx, src, reduce, include_self=True):
    if reduce not in _REDUCE or reduce == "mean":
        raise NotImplementedError(f"scatter_reduce reduce={reduce!r} (supported: sum, prod, amax, amin)")
    if not include_self:
        raise NotImplementedError("scatter_reduce include_self=False")
    return scatter(ctx, x, dim, idx, src, reduce)


@converter("aten.index_put.default", "aten.index_put_.default", "aten._unsafe_index_put.default")
def index_put(ctx, x, indices, values, accumulate=False):
    positions = [i for i, idx in enumerate(indices) if idx is not None]
    if len(positions) != 1 or ctx.ndim(indices[positions[0]]) != 1:
        raise NotImplementedError(f"index_put with {len(positions)} index tensors of ranks "
                                  f"{[ctx.ndim(indices[i]) for i in positions]} (supported: one 1-D index tensor)")
    (axis,) = positions
    shape = ctx.shape(x)
    idx = ctx.operand(indices[axis], "int64")
    k = ctx.shape(idx)[0]
    target = shape[:axis] + [k] + shape[axis + 1:]
    idx = ctx.emit(R.reshape(idx, [1] * axis + [k] + [1] * (len(shape) - axis - 1)))
    idx = ctx.emit(R.broadcast_to(idx, target))
    idx = ctx.emit(R.floor_mod(idx, ctx.operand(shape[axis], "int64")))
    vals = ctx.operand(values, ctx.dtype(x))
    if ctx.shape(vals) != target:
        vals = ctx.emit(R.broadcast_to(vals, target))
    return R.scatter_elements(x, idx, vals, axis, "add" if accumulate else "update")


@converter("aten.one_hot.default")
def one_hot(ctx, x, num_classes=-1):
    if num_classes < 0:
        raise NotImplementedError("one_hot needs num_classes (the class count is data-dependent otherwise)")
    from ember import tir

    return R.one_hot(ctx.operand(x, "int64"), tir.IntImm("int64", 1), tir.IntImm("int64", 0), num_classes)

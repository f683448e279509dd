"""Reference (numpy) semantics of the indexing, sorting, scan and replication operators."""

from __future__ import annotations

import numpy as np

__all__ = ["MORE_IMPLS"]


def _gather_nd(args, attrs):
    data, idx = args
    b = attrs.batch_dims
    if b == 0:
        return data[tuple(np.moveaxis(idx, -1, 0))]
    batch = int(np.prod(idx.shape[:b]))
    d = data.reshape((batch,) + data.shape[b:])
    i = idx.reshape((batch,) + idx.shape[b:])
    out = np.stack([d[k][tuple(np.moveaxis(i[k], -1, 0))] for k in range(batch)])
    return out.reshape(idx.shape[:-1] + data.shape[b + idx.shape[-1] :])


_SCATTER = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _scatter_elements(args, attrs):
    data, idx, upd = args
    out = data.copy()
    axis = attrs.axis % data.ndim
    for pos in np.ndindex(*idx.shape):
        target = list(pos)
        target[axis] = idx[pos] % data.shape[axis]
        target = tuple(target)
        if attrs.reduction == "update":
            out[target] = upd[pos]
        else:
            out[target] = _SCATTER[attrs.reduction](out[target], upd[pos])
    return out


def _one_hot(args, attrs):
    idx, on, off = args
    eye = np.arange(attrs.depth)
    axis = attrs.axis % (idx.ndim + 1)
    hot = np.expand_dims(idx, axis) == eye.reshape([-1 if i == axis else 1 for i in range(idx.ndim + 1)])
    dtype = np.asarray(on).dtype
    return np.where(hot, on, off).astype(dtype)


def _scan(fn, ident):
    def run(args, attrs):
        x = args[0]
        if attrs.axis is None:
            x, axis = x.reshape(-1), 0
        else:
            axis = attrs.axis
        dtype = attrs.dtype.numpy() if attrs.dtype is not None else x.dtype
        out = fn(x, axis=axis, dtype=dtype)
        if attrs.exclusive:
            out = np.concatenate([np.full_like(np.take(out, [0], axis), ident), np.delete(out, -1, axis)], axis)
        return out

    return run


def _argsort(args, attrs):
    x = args[0]
    order = np.argsort(-x if attrs.descending else x, axis=attrs.axis, kind="stable")
    return order.astype(attrs.dtype.numpy())


def _topk(args, attrs):
    x = args[0]
    order = np.argsort(-x if attrs.largest else x, axis=attrs.axis, kind="stable")
    idx = np.take(order, np.arange(attrs.k), axis=attrs.axis)
    vals = np.take_along_axis(x, idx, axis=attrs.axis)
    idx = idx.astype(attrs.dtype.numpy())
    return {"both": (vals, idx), "values": vals, "indices": idx}[attrs.ret_type]


MORE_IMPLS = {
    "gather_elements": lambda args, attrs: np.take_along_axis(args[0], args[1], axis=attrs.axis),
    "gather_nd": _gather_nd,
    "scatter_elements": _scatter_elements,
    "one_hot": _one_hot,
    "sort": lambda args, attrs: (np.flip(np.sort(args[0], axis=attrs.axis), attrs.axis)
                                 if attrs.descending else np.sort(args[0], axis=attrs.axis)),
    "argsort": _argsort,
    "topk": _topk,
    "cumsum": _scan(np.cumsum, 0),
    "cumprod": _scan(np.cumprod, 1),
    "tile": lambda args, attrs: np.tile(args[0], attrs.repeats),
    "repeat": lambda args, attrs: np.repeat(args[0], attrs.repeats, axis=attrs.axis),
    "flip": lambda args, attrs: np.flip(args[0], axis=attrs.axis),
    "einsum": lambda args, attrs: np.einsum(attrs.subscripts, *args[0]),
}

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


def _source_coords(out_len: int, in_len: int, mode: str):
    scale = in_len / out_len
    i = np.arange(out_len, dtype="float64")
    if mode == "align_corners":
        return i * ((in_len - 1) / (out_len - 1)) if out_len > 1 else np.zeros(out_len)
    if mode == "asymmetric":
        return i * scale
    if mode == "pytorch_half_pixel" and out_len == 1:
        return np.zeros(out_len)
    if mode == "tf_half_pixel_for_nn":
        return (i + 0.5) * scale
    return (i + 0.5) * scale - 0.5


def _nearest(coord, n: int, rounding: str, mode: str):
    if rounding == "floor" or (rounding == "" and mode == "tf_half_pixel_for_nn"):
        idx = np.floor(coord)
    elif rounding == "ceil":
        idx = np.ceil(coord)
    elif rounding == "round_prefer_ceil":
        idx = np.floor(coord + 0.5)
    else:  # "round" rounds halves away from zero, "round_prefer_floor" towards it
        idx = np.ceil(coord - 0.5) if rounding == "round_prefer_floor" else np.sign(coord) * np.floor(np.abs(coord) + 0.5)
    return np.clip(idx.astype(int), 0, n - 1)


def _linear_weights(coord, n: int):
    coord = np.clip(coord, 0, n - 1)
    lo = np.floor(coord).astype(int)
    hi = np.minimum(lo + 1, n - 1)
    return lo, hi, coord - lo


def _resize2d(args, attrs):
    from .ops_window import to_layout

    x = to_layout(args[0], attrs.layout, "NCHW").astype("float64")
    oh, ow = (int(s) for s in args[1])
    h, w = x.shape[2:]
    ys = _source_coords(oh, h, attrs.coordinate_transformation_mode)
    xs = _source_coords(ow, w, attrs.coordinate_transformation_mode)
    if attrs.method == "nearest_neighbor":
        rows = _nearest(ys, h, attrs.rounding_method, attrs.coordinate_transformation_mode)
        cols = _nearest(xs, w, attrs.rounding_method, attrs.coordinate_transformation_mode)
        out = x[:, :, rows][:, :, :, cols]
    elif attrs.method == "linear":
        y0, y1, fy = _linear_weights(ys, h)
        x0, x1, fx = _linear_weights(xs, w)
        top = x[:, :, y0][:, :, :, x0] * (1 - fx) + x[:, :, y0][:, :, :, x1] * fx
        bottom = x[:, :, y1][:, :, :, x0] * (1 - fx) + x[:, :, y1][:, :, :, x1] * fx
        out = top * (1 - fy)[:, None] + bottom * fy[:, None]
    else:
        raise NotImplementedError("the reference resize2d implements nearest_neighbor and linear")
    dtype = attrs.out_dtype.numpy() if attrs.out_dtype is not None else args[0].dtype
    return to_layout(out, "NCHW", attrs.layout).astype(dtype)


def _prelu(args, attrs):
    x, alpha = args
    shape = [1] * x.ndim
    shape[attrs.axis] = -1
    return np.where(x > 0, x, x * alpha.reshape(shape)).astype(x.dtype)


def _instance_norm(args, attrs):
    x, gamma, beta = args
    axes = tuple(attrs.axes)
    out = (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + attrs.epsilon)
    shape = [1] * x.ndim
    shape[attrs.channel_axis] = -1
    if attrs.scale:
        out = out * gamma.reshape(shape)
    if attrs.center:
        out = out + beta.reshape(shape)
    return out.astype(x.dtype)


MORE_IMPLS.update({"image.resize2d": _resize2d, "nn.prelu": _prelu, "nn.instance_norm": _instance_norm})

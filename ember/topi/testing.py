"""numpy reference implementations for operator tests (TVM's ``topi.testing``)."""

from __future__ import annotations

import numpy as np

__all__ = [
    "conv2d_nchw_python", "conv1d_ncw_python", "softmax_python", "log_softmax_python",
    "batch_matmul", "dilate_python",
]


def _pads(padding, kernel, n: int):
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [0] * n, [0] * n
        total = [k - 1 for k in kernel]
        before = [(t + 1) // 2 for t in total]
        return before, [t - b for t, b in zip(total, before)]
    if isinstance(padding, int):
        return [padding] * n, [padding] * n
    padding = list(padding)
    if len(padding) == n:
        return padding, padding
    return padding[:n], padding[n:]


def _conv(a_np, w_np, stride, padding, dilation, groups):
    n = a_np.ndim - 2
    stride = [stride] * n if isinstance(stride, int) else list(stride)
    dilation = [dilation] * n if isinstance(dilation, int) else list(dilation)
    ksize = w_np.shape[2:]
    dilated = [(k - 1) * d + 1 for k, d in zip(ksize, dilation)]
    before, after = _pads(padding, dilated, n)
    xp = np.pad(a_np, [(0, 0), (0, 0)] + list(zip(before, after)))
    out_sp = [(xp.shape[2 + i] - dilated[i]) // stride[i] + 1 for i in range(n)]
    out_ch, cg = w_np.shape[0], w_np.shape[1]
    og = out_ch // groups
    out = np.zeros((a_np.shape[0], out_ch, *out_sp), dtype=np.float64)
    for g in range(groups):
        for kpos in np.ndindex(*ksize):
            sl = tuple(slice(k * d, k * d + (o - 1) * s + 1, s)
                       for k, d, o, s in zip(kpos, dilation, out_sp, stride))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            wk = w_np[(slice(g * og, (g + 1) * og), slice(None)) + kpos]
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", patch, wk)
    return out.astype(a_np.dtype)


def conv2d_nchw_python(a_np, w_np, stride, padding, groups: int = 1, dilation=1):
    """NCHW convolution with an OIHW kernel; padding is an int, (h, w), 4-tuple or SAME/VALID."""
    if not isinstance(padding, str | int) and len(padding) == 4:  # (top, left, bottom, right)
        padding = (padding[0], padding[1], padding[2], padding[3])
    return _conv(a_np, w_np, stride, padding, dilation, groups)


def conv1d_ncw_python(a_np, w_np, stride, padding, dilation=1):
    """NCW convolution with an OIW kernel."""
    return _conv(a_np, w_np, stride, padding, dilation, 1)


def softmax_python(a_np, axis: int = 1):
    e = np.exp(a_np - a_np.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_python(a_np, axis: int = 1):
    shifted = a_np - a_np.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def batch_matmul(x, y, out_dtype=None, trans_x: bool = False, trans_y: bool = True):
    """Batched matmul with a broadcast batch of 1, ``y`` transposed by default."""
    xs = x.transpose(0, 2, 1) if trans_x else x
    ys = y.transpose(0, 2, 1) if trans_y else y
    out = np.matmul(xs.astype(out_dtype or x.dtype), ys.astype(out_dtype or x.dtype))
    return out


def dilate_python(a_np, strides, dilation_value=0.0):
    """``a_np`` with ``stride - 1`` fill elements between neighbours in each dimension."""
    shape = [(d - 1) * s + 1 for d, s in zip(a_np.shape, strides)]
    out = np.full(shape, dilation_value, dtype=a_np.dtype)
    out[tuple(slice(None, None, s) for s in strides)] = a_np
    return out

"""numpy references for the nn operator tests."""

import numpy as np


def conv_nd(x, w, stride, pad_before, pad_after, dilation, groups=1):
    """Channels-first convolution of any spatial rank."""
    n = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(pad_before, pad_after)))
    ksize = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - ((ksize[i] - 1) * dilation[i] + 1)) // stride[i] + 1 for i in range(n)]
    O, cg = w.shape[0], w.shape[1]
    og = O // groups
    out = np.zeros((x.shape[0], O, *out_sp), dtype=np.float64)
    for g in range(groups):
        for kpos in np.ndindex(*ksize):
            sl = tuple(slice(k * d, k * d + (o - 1) * s + 1, s) for k, d, o, s in zip(kpos, dilation, out_sp, stride))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            wk = w[(slice(g * og, (g + 1) * og), slice(None)) + kpos]
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", patch, wk)
    return out.astype(x.dtype)


def pool2d(x, kernel, stride, dilation, pad, pool_type, ceil_mode=False, count_include_pad=True):
    pt, pl, pb, pr = pad
    N, C, H, W = x.shape
    kh, kw = kernel
    sh, sw = stride
    dh, dw = dilation

    def out_size(size, k, s, d, p0, p1):
        dk = (k - 1) * d + 1
        span = size + p0 + p1 - dk
        if ceil_mode:
            o = -(-span // s) + 1
            if (o - 1) * s >= size + p0:
                o -= 1
            return o
        return span // s + 1

    OH, OW = out_size(H, kh, sh, dh, pt, pb), out_size(W, kw, sw, dw, pl, pr)
    out = np.zeros((N, C, OH, OW), x.dtype)
    for oh in range(OH):
        for ow in range(OW):
            vals, count = [], 0
            for r in range(kh):
                for s in range(kw):
                    h, w = oh * sh - pt + r * dh, ow * sw - pl + s * dw
                    inside_pad = -pt <= h < H + pb and -pl <= w < W + pr
                    if 0 <= h < H and 0 <= w < W:
                        vals.append(x[:, :, h, w])
                        count += 1
                    elif inside_pad and count_include_pad:
                        count += 1
                    if inside_pad and not (0 <= h < H and 0 <= w < W) and pool_type == "avg":
                        vals.append(np.zeros_like(x[:, :, 0, 0]))
            stacked = np.stack(vals)
            if pool_type == "max":
                out[:, :, oh, ow] = stacked.max(0)
            else:
                out[:, :, oh, ow] = stacked.sum(0) / max(count, 1)
    return out


def adaptive_pool2d(x, out_size, pool_type):
    N, C, H, W = x.shape
    oh_n, ow_n = out_size
    out = np.zeros((N, C, oh_n, ow_n), x.dtype)
    for i in range(oh_n):
        h0, h1 = i * H // oh_n, -(-(i + 1) * H // oh_n)
        for j in range(ow_n):
            w0, w1 = j * W // ow_n, -(-(j + 1) * W // ow_n)
            win = x[:, :, h0:h1, w0:w1]
            out[:, :, i, j] = win.max((2, 3)) if pool_type == "max" else win.mean((2, 3))
    return out

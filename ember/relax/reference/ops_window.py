"""Reference (numpy) semantics of window operators in any number of spatial dims:
convolutions (conv1d/2d/3d, conv2d_transpose), pooling (max/avg, 1-3 d) and adaptive
average pooling.  Tensors are brought to channels-first layout, computed, and put back."""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["conv_nd", "WINDOW_IMPLS", "to_layout"]


def to_layout(x, src: str, dst: str):
    return np.transpose(x, [src.index(c) for c in dst])


def _window(offsets, dilation, strides, out_sizes):
    return tuple(slice(o * d, o * d + s * (n - 1) + 1, s) for o, d, s, n in zip(offsets, dilation, strides, out_sizes))


def conv_nd(x, w, strides, padding, dilation, groups):
    """Direct convolution, x: (N, C, *spatial), w: (O, C/groups, *kernel); padding = begins + ends."""
    k = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(padding[i], padding[i + k]) for i in range(k)])
    out_sizes = [(xp.shape[2 + i] - dilation[i] * (w.shape[2 + i] - 1) - 1) // strides[i] + 1 for i in range(k)]
    o, ci = w.shape[:2]
    out = np.zeros((x.shape[0], o, *out_sizes), dtype=np.result_type(x.dtype, w.dtype))
    opg = o // groups
    for g in range(groups):
        xs, ws = xp[:, g * ci : (g + 1) * ci], w[g * opg : (g + 1) * opg]
        for offs in itertools.product(*(range(n) for n in w.shape[2:])):
            patch = xs[(slice(None), slice(None)) + _window(offs, dilation, strides, out_sizes)]
            out[:, g * opg : (g + 1) * opg] += np.einsum("nc...,oc->no...", patch, ws[(slice(None), slice(None)) + offs])
    return out


def _conv(spatial: str):
    def run(args, attrs):
        x = to_layout(args[0], attrs.data_layout, "NC" + spatial)
        w = to_layout(args[1], attrs.kernel_layout, "OI" + spatial)
        out = conv_nd(x, w, attrs.strides, attrs.padding, attrs.dilation, attrs.groups)
        dtype = attrs.out_dtype.numpy() if attrs.out_dtype is not None else args[0].dtype
        return to_layout(out, "NC" + spatial, attrs.out_layout).astype(dtype)

    return run


def _conv2d_transpose(args, attrs):
    x = to_layout(args[0], attrs.data_layout, "NCHW")
    w = to_layout(args[1], attrs.kernel_layout, "IOHW")  # (in, out/groups, kh, kw)
    n, c, h, wd = x.shape
    _, opg, kh, kw = w.shape
    g = attrs.groups
    (sh, sw), (dh, dw) = attrs.strides, attrs.dilation
    full = ((h - 1) * sh + dh * (kh - 1) + 1 + attrs.output_padding[0],
            (wd - 1) * sw + dw * (kw - 1) + 1 + attrs.output_padding[1])
    out = np.zeros((n, opg * g, *full), dtype=x.dtype)
    cpg = c // g
    for gi in range(g):
        xs, ws = x[:, gi * cpg : (gi + 1) * cpg], w[gi * cpg : (gi + 1) * cpg]
        for i, j in itertools.product(range(kh), range(kw)):
            region = _window((i, j), (dh, dw), (sh, sw), (h, wd))
            out[(slice(None), slice(gi * opg, (gi + 1) * opg)) + region] += np.einsum("nchw,co->nohw", xs, ws[:, :, i, j])
    pt, pl, pb, pr = attrs.padding
    out = out[:, :, pt : full[0] - pb, pl : full[1] - pr]
    return to_layout(out, "NCHW", attrs.out_layout)


def _pool(kind: str, spatial: str):
    def run(args, attrs):
        x = to_layout(args[0], attrs.layout, "NC" + spatial).astype("float64")
        k = len(spatial)
        sizes = x.shape[2:]
        begins, ends = attrs.padding[:k], attrs.padding[k:]
        out_sizes = []
        for i in range(k):
            span = sizes[i] + begins[i] + ends[i] - attrs.dilation[i] * (attrs.pool_size[i] - 1) - 1
            out_sizes.append((span + attrs.strides[i] - 1) // attrs.strides[i] + 1 if attrs.ceil_mode
                             else span // attrs.strides[i] + 1)
        # pad enough on the far side for ceil mode; padded cells never win a max nor count
        extra = [max((out_sizes[i] - 1) * attrs.strides[i] + attrs.dilation[i] * (attrs.pool_size[i] - 1) + 1
                     - (sizes[i] + begins[i]), 0) for i in range(k)]
        fill = -np.inf if kind == "max" else 0.0
        pads = [(0, 0), (0, 0)] + [(begins[i], extra[i]) for i in range(k)]
        xp = np.pad(x, pads, constant_values=fill)
        valid = np.pad(np.ones(sizes), [(begins[i], extra[i]) for i in range(k)])
        inside = np.pad(np.ones([sizes[i] + begins[i] + ends[i] for i in range(k)]),
                        [(0, max(extra[i] - ends[i], 0)) for i in range(k)])
        counted = inside if attrs.count_include_pad else valid
        windows, counts = [], []
        for offs in itertools.product(*(range(p) for p in attrs.pool_size)):
            region = _window(offs, attrs.dilation, attrs.strides, out_sizes)
            windows.append(xp[(slice(None), slice(None)) + region])
            counts.append(counted[region])
        if kind == "max":
            out = np.max(windows, axis=0)
        else:
            out = np.sum(windows, axis=0) / np.maximum(np.sum(counts, axis=0), 1)
        return to_layout(out.astype(args[0].dtype), "NC" + spatial, attrs.out_layout)

    return run


def _adaptive_avg(spatial: str):
    def run(args, attrs):
        x = to_layout(args[0], attrs.layout, "NC" + spatial)
        sizes = x.shape[2:]
        outs = attrs.output_size if attrs.output_size is not None else sizes
        out = np.zeros(x.shape[:2] + tuple(outs), dtype=x.dtype)
        for idx in itertools.product(*(range(o) for o in outs)):
            region = tuple(slice((i * n) // o, -((-(i + 1) * n) // o)) for i, n, o in zip(idx, sizes, outs))
            out[(slice(None), slice(None)) + idx] = x[(slice(None), slice(None)) + region].mean(
                axis=tuple(range(2, 2 + len(spatial))))
        return to_layout(out, "NC" + spatial, attrs.out_layout)

    return run


_SPATIAL = {1: "W", 2: "HW", 3: "DHW"}

WINDOW_IMPLS = {
    **{f"nn.conv{k}d": _conv(s) for k, s in _SPATIAL.items()},
    "nn.conv2d_transpose": _conv2d_transpose,
    **{f"nn.max_pool{k}d": _pool("max", s) for k, s in _SPATIAL.items()},
    **{f"nn.avg_pool{k}d": _pool("avg", s) for k, s in _SPATIAL.items()},
    **{f"nn.adaptive_avg_pool{k}d": _adaptive_avg(s) for k, s in _SPATIAL.items()},
}

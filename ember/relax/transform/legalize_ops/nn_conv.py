"""Legalisers of convolutions and windows: conv1d/2d/3d (any layout: transposed to
channels-first around ``topi.nn.conv``), conv2d_transpose (NCHW/IOHW, groups=1,
dilation=1), max/avg pooling and adaptive average pooling of 1 to 3 spatial dims, pad."""

from __future__ import annotations

import re

from ember import topi
from ember.tir.data_layout import layout

from .common import Legalizer, emit_te, int_tuple, out_dtype

__all__ = ["TABLE"]

_CANON_DATA = {3: "NCW", 4: "NCHW", 5: "NCDHW"}
_CANON_KERNEL = {3: "OIW", 4: "OIHW", 5: "OIDHW"}


def _to_layout(t, src: str, dst: str):
    """``t`` (in layout ``src``) transposed to layout ``dst`` (same letters), or re-blocked
    when either is a sub-indexed layout (``"NCHW16c"``)."""
    if src == dst:
        return t
    if not (src.isalpha() and src.isupper() and dst.isalpha() and dst.isupper()):
        return _relayout(t, src, dst)
    if sorted(src) != sorted(dst):
        raise ValueError(f"LegalizeOps: cannot convert layout {src!r} to {dst!r}")
    return topi.transpose(t, [src.index(c) for c in dst])


def _relayout(t, src: str, dst: str):
    """``t`` in the sub-indexed layout ``src`` → layout ``dst`` (same primal letters)."""
    from ember.te import compute
    from ember.tir.data_layout import layout, layout_index_map

    back = layout_index_map(dst, src, index_dtype="int64")
    shape = layout(dst).shape(layout(src).logical(list(t.shape)))
    return compute(tuple(shape), lambda *i: t(*back.map_indices(list(i))), name="layout_transform")


_BLOCKED = re.compile(r"NCHW(\d+)c|OIHW(\d+)o")


def _blocked_conv2d(call) -> bool:
    """Whether ``call`` is NCHW{b}c / OIHW{o}o → NCHW{o}c with groups 1 or depthwise (its own kernel)."""
    a = call.attrs
    d, k, o = (_BLOCKED.fullmatch(s) for s in (a.data_layout, a.kernel_layout, a.out_layout))
    if call.op.name != "relax.nn.conv2d" or not (d and d.group(1) and k and k.group(2) and o and o.group(1)):
        return False
    if o.group(1) != k.group(2) or len(a.padding) != 4:
        return False
    if a.groups == 1:
        return True
    w = [int(v) for v in call.args[1].struct_info.shape.values]
    return w[1] == 1 and d.group(1) == k.group(2)


def _conv(bb, call):
    a = call.attrs
    ndim = len(call.args[0].struct_info.shape.values)
    dtype = out_dtype(call)
    if _blocked_conv2d(call):
        depthwise = a.groups != 1
        name = "depthwise_conv2d_NCHWc" if depthwise else "conv2d_NCHWc"
        return emit_te(bb, call, lambda x, w: topi.nn.conv2d_nchwc(x, w, tuple(a.strides), tuple(a.padding),
                                                                   tuple(a.dilation), dtype, depthwise),
                       *call.args, primfunc_name_hint=name, primfunc_attrs={"op_pattern": 4})
    ndim = len(layout(a.data_layout).primal)  # the logical rank (NCHW16c: 4)

    def f(x, w):
        x = _to_layout(x, a.data_layout, _CANON_DATA[ndim])
        w = _to_layout(w, a.kernel_layout, _CANON_KERNEL[ndim])
        out = topi.nn.conv(x, w, list(a.strides), list(a.padding), list(a.dilation), a.groups, dtype)
        return _to_layout(out, _CANON_DATA[ndim], a.out_layout)

    return emit_te(bb, call, f, *call.args)


def _conv2d_transpose(bb, call):
    a = call.attrs
    if a.groups != 1 or any(d != 1 for d in a.dilation):
        raise NotImplementedError("LegalizeOps: relax.nn.conv2d_transpose supports groups=1 and dilation=1, "
                                  f"got groups={a.groups}, dilation={tuple(a.dilation)}")
    dtype = out_dtype(call)

    def f(x, w):
        x = _to_layout(x, a.data_layout, "NCHW")
        w = _to_layout(w, a.kernel_layout, "IOHW")
        out = topi.nn.conv2d_transpose_nchw(x, w, list(a.strides), list(a.padding), dtype,
                                            list(a.output_padding))
        return _to_layout(out, "NCHW", a.out_layout)

    return emit_te(bb, call, f, *call.args)


_POOL = {1: topi.nn.pool1d, 2: topi.nn.pool2d, 3: topi.nn.pool3d}
_ADAPTIVE = {1: topi.nn.adaptive_pool1d, 2: topi.nn.adaptive_pool, 3: topi.nn.adaptive_pool3d}


def _pool(pool_type: str) -> Legalizer:
    def legalize(bb, call):
        a = call.attrs
        n = len(a.pool_size)

        def f(x):
            out = _POOL[n](x, int_tuple(a.pool_size), int_tuple(a.strides), int_tuple(a.dilation),
                           int_tuple(a.padding), pool_type, a.ceil_mode, a.layout, a.count_include_pad)
            return _to_layout(out, a.layout, a.out_layout)

        return emit_te(bb, call, f, call.args[0])

    return legalize


def _adaptive(pool_type: str) -> Legalizer:
    def legalize(bb, call):
        a = call.attrs
        x_sinfo = call.args[0].struct_info
        lay = layout(a.layout)  # may be channel-blocked ("NCHW16c")
        n = len(lay.primal) - 2
        size = a.output_size
        if size is None:
            dims = x_sinfo.shape.values
            size = [int(dims[lay.index_of(c)]) for c in lay.primal if c not in "NC"]

        def f(x):
            out = _ADAPTIVE[n](x, list(int_tuple(size)), pool_type, a.layout)
            return _to_layout(out, a.layout, a.out_layout)

        return emit_te(bb, call, f, call.args[0])

    return legalize


def _pad(bb, call):
    a = call.attrs
    if a.pad_mode != "constant":
        raise NotImplementedError(f"LegalizeOps: relax.nn.pad supports pad_mode='constant', got {a.pad_mode!r}")
    before, after = list(a.pad_width[0::2]), list(a.pad_width[1::2])
    return emit_te(bb, call, lambda x: topi.nn.pad(x, before, after, a.pad_value), call.args[0])


TABLE: dict[str, Legalizer] = {
    "relax.nn.conv1d": _conv,
    "relax.nn.conv2d": _conv,
    "relax.nn.conv3d": _conv,
    "relax.nn.conv2d_transpose": _conv2d_transpose,
    **{f"relax.nn.max_pool{n}d": _pool("max") for n in (1, 2, 3)},
    **{f"relax.nn.avg_pool{n}d": _pool("avg") for n in (1, 2, 3)},
    **{f"relax.nn.adaptive_avg_pool{n}d": _adaptive("avg") for n in (1, 2, 3)},
    "relax.nn.pad": _pad,
}


def _attention(bb, call):
    a = call.attrs
    if a.window_size is not None:
        raise NotImplementedError(f"LegalizeOps: relax.nn.attention with window_size={a.window_size} is not supported")
    return emit_te(bb, call, lambda q, k, v, *bias: topi.nn.attention(q, k, v, bias[0] if bias else None,
                                                                      a.scale, a.causal_mask), *call.args)


TABLE["relax.nn.attention"] = _attention

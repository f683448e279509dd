"""``deformable_conv2d_nchw``: 2-D convolution whose taps sample the input at learned
offsets (Deformable ConvNets v1; v2 with a modulation ``mask``), as in TVM and ONNX DeformConv.

Two stages: ``deform_columns[n, c, i, j, y, x]`` bilinearly samples channel ``c`` at
``(y*stride - pad + i*dilation + dy, x*stride - pad + j*dilation + dx)`` (corners outside
the image read 0) times the mask; the output is a grouped reduction of the kernel against
those columns.  ``offset`` is ``[N, deformable_groups*2*kh*kw, oh, ow]`` with (dy, dx) per
tap; ``mask`` is ``[N, deformable_groups*kh*kw, oh, ow]``.
"""

from __future__ import annotations

from ember import te
from ember.ir import const
from ember.tir import op as tir_op

from ..utils import get_const_int

__all__ = ["deformable_conv2d_nchw"]


def _pair(v):
    return (int(v), int(v)) if isinstance(v, int) else tuple(int(x) for x in v)


def deformable_conv2d_nchw(data, offset, kernel, strides, padding, dilation, deformable_groups: int = 1,
                           groups: int = 1, out_dtype=None, mask=None) -> te.Tensor:
    """Deformable convolution (see the module docstring); ``padding`` is (top, left) or 4 values."""
    n, c, h, w = (get_const_int(s) for s in data.shape)
    oc, cpg, kh, kw = (get_const_int(s) for s in kernel.shape)
    sh, sw = _pair(strides)
    dh, dw = _pair(dilation)
    pad = [int(p) for p in ((padding,) * 2 if isinstance(padding, int) else padding)]
    pt, pl = pad[0], pad[1]
    oh, ow = get_const_int(offset.shape[2]), get_const_int(offset.shape[3])
    if c % groups or c // groups != cpg or oc % groups:
        raise ValueError(f"topi.nn.deformable_conv2d_nchw: {c} input channels and {oc} output channels do not "
                         f"split into {groups} groups of kernel input width {cpg}")
    if c % deformable_groups or get_const_int(offset.shape[1]) != deformable_groups * 2 * kh * kw:
        raise ValueError(f"topi.nn.deformable_conv2d_nchw: offset must have {deformable_groups * 2 * kh * kw} "
                         f"channels for {deformable_groups} deformable groups of a {kh}x{kw} kernel, got "
                         f"{get_const_int(offset.shape[1])}")
    f = data.dtype if data.dtype.is_float else offset.dtype
    out_dtype = out_dtype or data.dtype
    c_per_dg = c // deformable_groups
    idx = data.shape[2].dtype

    def sample(b, ch, i, j, y, x):
        g = ch // c_per_dg
        tap = (g * kh + i) * kw + j
        py = tir_op.cast(y * sh - pt + i * dh, f) + offset(b, tap * 2, y, x)
        px = tir_op.cast(x * sw - pl + j * dw, f) + offset(b, tap * 2 + 1, y, x)
        y0, x0 = tir_op.floor(py), tir_op.floor(px)
        fy, fx = py - y0, px - x0
        total = None
        for oy, wy in ((0, const(1.0, f) - fy), (1, fy)):
            for ox, wx in ((0, const(1.0, f) - fx), (1, fx)):
                yy = tir_op.cast(y0, idx) + oy
                xx = tir_op.cast(x0, idx) + ox
                inside = tir_op.logical_and(tir_op.logical_and(yy >= 0, yy < h), tir_op.logical_and(xx >= 0, xx < w))
                yc = tir_op.min(tir_op.max(yy, const(0, idx)), const(h - 1, idx))
                xc = tir_op.min(tir_op.max(xx, const(0, idx)), const(w - 1, idx))
                value = tir_op.Select(inside, tir_op.cast(data(b, ch, yc, xc), f) * wy * wx, const(0.0, f))
                total = value if total is None else total + value
        if mask is not None:
            total = total * tir_op.cast(mask(b, tap, y, x), f)
        return total

    columns = te.compute((n, c, kh, kw, oh, ow), sample, name="deform_columns")
    rc = te.reduce_axis((0, cpg), name="rc")
    ri = te.reduce_axis((0, kh), name="ri")
    rj = te.reduce_axis((0, kw), name="rj")
    opg = oc // groups

    def conv(b, o, y, x):
        ch = (o // opg) * cpg + rc.var
        return te.sum(tir_op.cast(columns(b, ch, ri.var, rj.var, y, x), out_dtype)
                      * tir_op.cast(kernel(o, rc.var, ri.var, rj.var), out_dtype), axis=[rc, ri, rj])

    return te.compute((n, oc, oh, ow), conv, name="deformable_conv2d", tag="deformable_conv2d_nchw")

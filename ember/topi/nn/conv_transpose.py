"""Transposed convolutions (NCW / NCHW), computed as in TVM: dilate the input by the
stride, pad it by ``k - 1 - pad`` (plus ``output_padding`` after), then convolve with
the spatially flipped kernel whose in/out channels are swapped (kernel is I, O, *K)."""

from __future__ import annotations

from ember import te
from ember.ir import DataType, const
from ember.tir import op as tir_op

from ..utils import get_const_int
from .pad import pad

__all__ = ["dilate", "conv1d_transpose_ncw", "conv2d_transpose_nchw"]


def dilate(data, strides, dilation_value=0.0, name: str = "DilatedInput") -> te.Tensor:
    """``data`` with ``strides[d] - 1`` fill elements between neighbours along each dim."""
    strides = [int(s) for s in strides]
    if len(strides) != data.ndim:
        raise ValueError(f"topi.nn.dilate: need {data.ndim} strides (one per dimension), got {len(strides)}")
    shape = tuple((d - 1) * s + 1 if s != 1 else d for d, s in zip(data.shape, strides))
    fill = const(dilation_value, data.dtype)

    def f(*idx):
        conds, src = [], []
        for i, s in zip(idx, strides):
            if s == 1:
                src.append(i)
            else:
                conds.append(tir_op.floormod(i, s) == 0)
                src.append(tir_op.floordiv(i, s))
        if not conds:
            return data(*src)
        return tir_op.if_then_else(tir_op.all(*conds), data(*src), fill)

    return te.compute(shape, f, name=name)


def _conv_transpose(data, kernel, strides, padding, out_dtype, output_padding, names):
    n = data.ndim - 2
    strides = [strides] * n if isinstance(strides, int) else list(strides)
    padding = [padding] * (2 * n) if isinstance(padding, int) else list(padding)
    if len(padding) == n:
        padding = padding + padding
    output_padding = [output_padding] * n if isinstance(output_padding, int) else list(output_padding)
    out_dtype = DataType(out_dtype or data.dtype)
    ksize = [get_const_int(k) for k in kernel.shape[2:]]
    dilated = dilate(data, [1, 1] + strides) if any(s != 1 for s in strides) else data
    before = [k - 1 - padding[i] for i, k in enumerate(ksize)]
    after = [k - 1 - padding[n + i] + output_padding[i] for i, k in enumerate(ksize)]
    if any(b < 0 or a < 0 for b, a in zip(before, after)):
        raise ValueError(f"conv_transpose: padding {padding} must be smaller than the kernel size {ksize}")
    padded = pad(dilated, [0, 0] + before, [0, 0] + after, name="data_pad")
    out_spatial = tuple(
        (data.shape[2 + i] - 1) * strides[i] - padding[i] - padding[n + i] + ksize[i] + output_padding[i]
        for i in range(n)
    )
    rc = te.reduce_axis((0, data.shape[1]), name="dc")
    rs = [te.reduce_axis((0, k), name=f"d{nm}") for k, nm in zip(ksize, names)]

    def f(b, c, *pos):
        src = [p + r.var for p, r in zip(pos, rs)]
        w = kernel(rc.var, c, *[k - 1 - r.var for k, r in zip(ksize, rs)])
        a = padded(b, rc.var, *src)
        return te.sum(tir_op.cast(a, out_dtype) * tir_op.cast(w, out_dtype), axis=[rc, *rs])

    shape = (data.shape[0], kernel.shape[1]) + out_spatial
    return te.compute(shape, f, name="compute", tag=f"conv{n}d_transpose_nc{'hw' if n == 2 else 'w'}",
                      varargs_names=["b", "c", *names])


def conv2d_transpose_nchw(Input, Filter, strides, padding, out_dtype=None, output_padding=(0, 0)) -> te.Tensor:  # noqa: N803
    """Transposed 2-D convolution; Filter is (in_channels, out_channels, kh, kw)."""
    return _conv_transpose(Input, Filter, strides, padding, out_dtype, output_padding, ("h", "w"))


def conv1d_transpose_ncw(data, kernel, stride, padding, out_dtype=None, output_padding=0) -> te.Tensor:
    """Transposed 1-D convolution; kernel is (in_channels, out_channels, k)."""
    return _conv_transpose(data, kernel, stride, padding, out_dtype, output_padding, ("w",))

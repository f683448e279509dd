"""2-D convolution with channel-blocked activations: data ``NCHW{b}c``, weight ``OIHW{o}o``,
output ``NCHW{o}c`` (the layouts ``relax.transform.ConvertLayout`` makes for CPUs).

``data[n, C, y, x, c]`` holds channel ``C·b + c``; ``weight[O, i, ky, kx, o]`` the weight of
output channel ``O·o_b + o`` for input channel ``i``.  Output channel blocks are whole
vectors, so a CPU kernel stores each output pixel's block contiguously, and the next
convolution reads its input the same way — no layout change between layers::

    out[n, F, y, x, f] = sum_{C, ky, kx, c} pad(data)[n, C, y·sh + ky·dh, x·sw + kx·dw, c]
                                            · weight[F, C·b + c, ky, kx, f]

The reduction runs over (input channel block, ky, kx, channel in block), in that order.
``depthwise`` (one input channel per output channel, ``b == o_b``, weight ``I`` = 1)::

    out[n, F, y, x, f] = sum_{ky, kx} pad(data)[n, F, y·sh + ky·dh, x·sw + kx·dw, f] · weight[F, 0, ky, kx, f]
"""

from __future__ import annotations

from ember import te
from ember.tir import const as tir_const
from ember.tir import op as tir_op

from .pad import pad

__all__ = ["conv2d_nchwc"]


def _i64(v: int):
    return tir_const(v, "int64")


def conv2d_nchwc(data: te.Tensor, weight: te.Tensor, strides, padding, dilation, out_dtype: str,
                 depthwise: bool = False) -> te.Tensor:
    """The convolution above (``padding`` = top, left, bottom, right)."""
    n, cb, h, w, bi = (int(d) for d in data.shape)
    fb, cin, kh, kw, bo = (int(d) for d in weight.shape)
    sh, sw = strides
    dh, dw = dilation
    top, left, bottom, right = padding
    if depthwise and (bi != bo or cin != 1 or cb != fb):
        raise ValueError(f"conv2d_nchwc: a depthwise convolution needs matching channel blocks, got data "
                         f"{tuple(data.shape)} and weight {tuple(weight.shape)}")
    if not depthwise and cin != cb * bi:
        raise ValueError(f"conv2d_nchwc: data has {cb * bi} channels, the weight {cin}")
    oh = (h + top + bottom - (kh - 1) * dh - 1) // sh + 1
    ow = (w + left + right - (kw - 1) * dw - 1) // sw + 1
    padded = (pad(data, [0, 0, top, left, 0], [0, 0, bottom, right, 0], name="pad_temp")
              if any(padding) else data)

    def cast(v):
        return v if str(v.dtype) == out_dtype else tir_op.cast(v, out_dtype)

    def scaled(v, k):
        return v if k == 1 else v * _i64(k)

    ry = te.reduce_axis((_i64(0), _i64(kh)), name="ry")
    rx = te.reduce_axis((_i64(0), _i64(kw)), name="rx")
    shape = tuple(_i64(v) for v in (n, fb, oh, ow, bo))
    if depthwise:
        def dw_f(nn, ff, yy, xx, fi):
            src = padded(nn, ff, scaled(yy, sh) + scaled(ry.var, dh), scaled(xx, sw) + scaled(rx.var, dw), fi)
            return te.sum(cast(src) * cast(weight(ff, _i64(0), ry.var, rx.var, fi)), axis=[ry, rx])

        return te.compute(shape, dw_f, name="depthwise_conv2d_NCHWc")
    rco = te.reduce_axis((_i64(0), _i64(cb)), name="rco")
    rci = te.reduce_axis((_i64(0), _i64(bi)), name="rci")

    def f(nn, ff, yy, xx, fi):
        src = padded(nn, rco.var, scaled(yy, sh) + scaled(ry.var, dh), scaled(xx, sw) + scaled(rx.var, dw), rci.var)
        wgt = weight(ff, rco.var * _i64(bi) + rci.var, ry.var, rx.var, fi)
        return te.sum(cast(src) * cast(wgt), axis=[rco, ry, rx, rci])

    return te.compute(shape, f, name="conv2d_NCHWc")

"""Direct convolutions with channels first (NCW, NCHW, NCDHW), groups and depthwise, plus
conv2d in NHWC/HWIO.

``out[n, f, y, x] = sum_{rc, ry, rx} pad(data)[n, g*C/G + rc, y*sh + ry*dh, x*sw + rx*dw]
* kernel[f, rc, ry, rx]`` where ``g = f // (F/G)``; padding is a separate ``pad_temp``
compute as in TVM, skipped when all pads are zero.
"""

from __future__ import annotations

from ember import te
from ember.ir import DataType
from ember.tir import op as tir_op

from ..utils import get_const_int, is_const_int
from .pad import get_pad_tuple, pad

__all__ = [
    "conv", "conv1d", "conv1d_ncw", "conv2d", "conv2d_nchw", "conv2d_nhwc", "group_conv2d_nchw",
    "depthwise_conv2d_nchw", "conv3d_ncdhw",
]

_SPATIAL_NAMES = {1: ("xx",), 2: ("yy", "xx"), 3: ("zz", "yy", "xx")}
_REDUCE_NAMES = {1: ("rx",), 2: ("ry", "rx"), 3: ("rz", "ry", "rx")}


def _tuple(v, n: int, what: str) -> tuple:
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise ValueError(f"{what} must have {n} entries, got {v!r}")
    return v


def _pads(padding, n: int, dilated_kernel) -> tuple[list, list]:
    if n == 2 or (isinstance(padding, str) and n == 2):
        top, left, down, right = get_pad_tuple(padding, dilated_kernel)
        return [top, left], [down, right]
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [0] * n, [0] * n
        if padding.upper() == "SAME":
            before = [(k - 1 + 1) // 2 for k in dilated_kernel]
            return before, [k - 1 - b for k, b in zip(dilated_kernel, before)]
        raise ValueError(f"padding must be 'SAME', 'VALID', an int or a tuple, got {padding!r}")
    if isinstance(padding, int):
        return [padding] * n, [padding] * n
    padding = tuple(padding)
    if len(padding) == n:
        return list(padding), list(padding)
    if len(padding) == 2 * n:
        return list(padding[:n]), list(padding[n:])
    raise ValueError(f"padding must have {n} or {2 * n} entries, got {padding!r}")


def _scaled(v, factor: int):
    return v if factor == 1 else v * factor


def _cast(v, dtype):
    return v if v.dtype is dtype else tir_op.cast(v, dtype)


def conv(data, kernel, strides=1, padding=0, dilation=1, groups: int = 1, out_dtype=None,
         name: str | None = None) -> te.Tensor:
    """Channels-first convolution of any spatial rank (data N,C,*S; kernel F,C/groups,*K)."""
    n = data.ndim - 2
    if n not in _SPATIAL_NAMES:
        raise ValueError(f"topi.nn.conv: data must have 3 to 5 dimensions, got {data.ndim}")
    if kernel.ndim != data.ndim:
        raise ValueError(f"topi.nn.conv: kernel must have {data.ndim} dimensions like data, got {kernel.ndim}")
    strides = _tuple(strides, n, "strides")
    dilation = _tuple(dilation, n, "dilation")
    out_dtype = DataType(out_dtype or data.dtype)
    in_ch, out_ch = data.shape[1], kernel.shape[0]
    if is_const_int(in_ch) and is_const_int(kernel.shape[1]):
        if get_const_int(in_ch) != get_const_int(kernel.shape[1]) * groups:
            raise ValueError(
                f"topi.nn.conv: data has {get_const_int(in_ch)} channels but kernel expects "
                f"{get_const_int(kernel.shape[1])} x groups={groups}"
            )
    if is_const_int(out_ch) and get_const_int(out_ch) % groups:
        raise ValueError(f"topi.nn.conv: {get_const_int(out_ch)} output channels are not divisible by groups={groups}")
    ksize = kernel.shape[2:]
    dilated = [(get_const_int(k) - 1) * d + 1 for k, d in zip(ksize, dilation)]
    before, after = _pads(padding, n, dilated)
    out_spatial = tuple(
        tir_op.floordiv(data.shape[2 + i] + before[i] + after[i] - dilated[i], strides[i]) + 1 for i in range(n)
    )
    if any(b or a for b, a in zip(before, after)):
        padded = pad(data, [0, 0] + before, [0, 0] + after, name="pad_temp")
    else:
        padded = data
    in_per_group = kernel.shape[1]
    out_per_group = tir_op.floordiv(out_ch, groups) if groups > 1 else out_ch
    rc = te.reduce_axis((0, in_per_group), name="rc")
    rs = [te.reduce_axis((0, k), name=nm) for k, nm in zip(ksize, _REDUCE_NAMES[n])]

    def f(nn, ff, *pos):
        ch = rc.var if groups == 1 else tir_op.floordiv(ff, out_per_group) * in_per_group + rc.var
        src = [_scaled(p, s) + _scaled(r.var, d) for p, s, r, d in zip(pos, strides, rs, dilation)]
        return te.sum(_cast(padded(nn, ch, *src), out_dtype) * _cast(kernel(ff, rc.var, *[r.var for r in rs]), out_dtype),
                      axis=[rc, *rs])

    default = {1: "conv1d_ncw", 2: "conv2d_nchw", 3: "conv3d_ncdhw"}[n]
    if groups > 1:
        default = "group_" + default
    shape = (data.shape[0], out_ch) + out_spatial
    # no layout_free_placeholders mark on the kernel, as TVM's generic conv (Relax's
    # AttachAttrLayoutFreeBuffers marks constant weights where a schedule may repack them)
    return te.compute(shape, f, name=name or default, tag=default,
                      varargs_names=["nn", "ff", *_SPATIAL_NAMES[n]])


def conv2d_nchw(Input, Filter, stride, padding, dilation, out_dtype=None) -> te.Tensor:  # noqa: N803
    return conv(Input, Filter, stride, padding, dilation, 1, out_dtype)


def group_conv2d_nchw(Input, Filter, stride, padding, dilation, groups, out_dtype=None) -> te.Tensor:  # noqa: N803
    return conv(Input, Filter, stride, padding, dilation, groups, out_dtype)


def depthwise_conv2d_nchw(Input, Filter, stride, padding, dilation, out_dtype=None) -> te.Tensor:  # noqa: N803
    """Filter is (C, multiplier, kh, kw): each input channel gets its own filters."""
    channels = get_const_int(Input.shape[1])
    mult = get_const_int(Filter.shape[1])
    w = te.compute((channels * mult, 1) + Filter.shape[2:],
                   lambda o, z, y, x: Filter[tir_op.floordiv(o, mult), tir_op.floormod(o, mult), y, x],
                   name="depthwise_weight")
    return conv(Input, w, stride, padding, dilation, channels, out_dtype, name="depthwise_conv2d_nchw")


def conv3d_ncdhw(Input, Filter, stride, padding, dilation, groups: int = 1, out_dtype=None) -> te.Tensor:  # noqa: N803
    return conv(Input, Filter, stride, padding, dilation, groups, out_dtype)


def conv1d_ncw(data, kernel, strides=1, padding="VALID", dilation=1, out_dtype=None) -> te.Tensor:
    return conv(data, kernel, strides, padding, dilation, 1, out_dtype)


def conv1d(data, kernel, strides=1, padding="VALID", dilation=1, data_layout: str = "NCW",
           kernel_layout: str = "", out_dtype=None, groups: int = 1) -> te.Tensor:
    """1-D convolution; only the NCW data layout is implemented."""
    if data_layout != "NCW":
        raise ValueError(f"topi.nn.conv1d: data_layout must be 'NCW', got {data_layout!r}")
    return conv(data, kernel, strides, padding, dilation, groups, out_dtype)


def conv2d(input, filter, strides, padding, dilation, data_layout: str = "NCHW",  # noqa: A002
           kernel_layout: str = "", out_dtype=None, groups: int = 1) -> te.Tensor:
    """2-D convolution in NCHW (kernel OIHW) or NHWC (kernel HWIO)."""
    if data_layout == "NCHW":
        return conv(input, filter, strides, padding, dilation, groups, out_dtype)
    if data_layout == "NHWC":
        if groups != 1:
            raise ValueError("topi.nn.conv2d: groups > 1 is only implemented for NCHW")
        return conv2d_nhwc(input, filter, strides, padding, dilation, out_dtype)
    raise ValueError(f"topi.nn.conv2d: data_layout must be 'NCHW' or 'NHWC', got {data_layout!r}")


def conv2d_nhwc(Input, Filter, stride, padding, dilation, out_dtype=None) -> te.Tensor:  # noqa: N803
    """NHWC data with an HWIO kernel."""
    sh, sw = _tuple(stride, 2, "strides")
    dh, dw = _tuple(dilation, 2, "dilation")
    out_dtype = DataType(out_dtype or Input.dtype)
    kh, kw, cin, cout = Filter.shape
    dkh, dkw = (get_const_int(kh) - 1) * dh + 1, (get_const_int(kw) - 1) * dw + 1
    top, left, down, right = get_pad_tuple(padding, (dkh, dkw))
    oh = tir_op.floordiv(Input.shape[1] + top + down - dkh, sh) + 1
    ow = tir_op.floordiv(Input.shape[2] + left + right - dkw, sw) + 1
    padded = pad(Input, [0, top, left, 0], [0, down, right, 0], name="PaddedInput") if (top or left or down or right) else Input
    rc = te.reduce_axis((0, cin), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    return te.compute(
        (Input.shape[0], oh, ow, cout),
        lambda nn, yy, xx, ff: te.sum(
            _cast(padded[nn, yy * sh + ry * dh, xx * sw + rx * dw, rc], out_dtype)
            * _cast(Filter[ry, rx, rc, ff], out_dtype), axis=[ry, rx, rc]),
        name="Conv2dOutput", tag="conv2d_nhwc",
    )

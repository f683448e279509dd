"""Convolutions of ``relax.nn``: conv1d, conv2d, conv2d_transpose (any layout letters)."""

from __future__ import annotations

from ember.ir import DataType, PrimExpr, as_expr

from ..._arith import as_int, simplify
from ...expr import Call
from ...struct_info import TensorStructInfo, shape_values
from .._infer import binary_dtype, tensor
from ..attrs import Conv1DAttrs, Conv2DAttrs, Conv2DTransposeAttrs, Conv3DAttrs
from ..base import make_call, register, shape_str, tensor_arg

__all__ = ["conv1d", "conv2d", "conv3d", "conv2d_transpose", "expand_padding", "conv_out_dim"]


def _tuple(v, n: int, what: str) -> tuple:
    if isinstance(v, int):
        return (v,) * n
    v = tuple(int(i) for i in v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise ValueError(f"{what} must have 1 or {n} values, got {len(v)}")
    return v


def expand_padding(padding, spatial: int) -> tuple:
    """Padding as (begin_0, …, begin_k, end_0, …, end_k), TVM's convention."""
    if isinstance(padding, int):
        return (padding,) * (2 * spatial)
    p = tuple(int(i) for i in padding)
    if len(p) == 1:
        return p * (2 * spatial)
    if len(p) == spatial:
        return p + p
    if len(p) == 2 * spatial:
        return p
    raise ValueError(f"padding must have 1, {spatial} or {2 * spatial} values, got {len(p)}")


def conv_out_dim(size: PrimExpr, kernel, pad_sum: int, stride: int, dilation: int) -> PrimExpr:
    """``(size + pad - dilation*(kernel-1) - 1) // stride + 1``, simplified."""
    return simplify((size + pad_sum - dilation * (kernel - 1) - 1) // stride + 1)


def _layout_check(layout: str, letters: str, what: str) -> None:
    if sorted(layout) != sorted(letters):
        raise ValueError(f"{what} {layout!r} is not supported; expected a permutation of {letters!r}")


def _infer_conv(call: Call, ctx, spatial_letters: str, transpose: bool) -> TensorStructInfo:
    data, weight = tensor_arg(call, 0), tensor_arg(call, 1)
    a = call.attrs
    name = call.op.name
    out_dtype = a.out_dtype or binary_dtype(call, data.dtype, weight.dtype)
    k = len(spatial_letters)
    # sub-indexed layouts ("NCHW16c", "OIHW16o") split a logical axis; shapes are worked out
    # on the logical (primal) axes and mapped back
    dl, kl, ol = (_parsed(s, name) for s in (a.data_layout, a.kernel_layout, a.out_layout))
    _layout_check(dl.primal, "NC" + spatial_letters, f"{name}: data_layout")
    _layout_check(kl.primal, "OI" + spatial_letters, f"{name}: kernel_layout")
    _layout_check(ol.primal, "NC" + spatial_letters, f"{name}: out_layout")
    for what, info, lay in (("data", data, dl), ("weight", weight, kl)):
        if info.ndim not in (-1, len(lay)):
            raise ValueError(f"{name}: {what} must have {len(lay)} dims, got {info.ndim}")
    dv, wv = shape_values(data), shape_values(weight)
    if dv is None or wv is None:
        return tensor(None, out_dtype, data.vdevice, len(ol))
    d = {c: simplify(v) for c, v in dl.logical(dv).items()}
    w = {c: simplify(v) for c, v in kl.logical(wv).items()}
    groups = a.groups
    cin = as_int(d["C"])
    if transpose:
        out_ch = w["O"] * groups  # the weight is (in_channels, out_channels / groups, …) for IOHW
        win = as_int(w["I"])
        if cin is not None and win is not None and cin != win:
            raise ValueError(
                f"{name}: data has {cin} channels but weight {shape_str(wv)} expects {win} input channels"
            )
    else:
        wi = as_int(w["I"])
        if cin is not None and wi is not None and cin != wi * groups:
            raise ValueError(
                f"{name}: data has {cin} channels but weight {shape_str(wv)} with groups={groups} "
                f"expects {wi * groups}"
            )
        o = as_int(w["O"])
        if o is not None and o % groups:
            raise ValueError(f"{name}: {o} output channels are not divisible by groups={groups}")
        out_ch = w["O"]
    out = {"N": d["N"], "C": simplify(out_ch) if isinstance(out_ch, PrimExpr) else out_ch}
    for i, c in enumerate(spatial_letters):
        pad = a.padding[i] + a.padding[i + k]
        if transpose:
            size = (d[c] - 1) * a.strides[i] - pad + a.dilation[i] * (w[c] - 1) + a.output_padding[i] + 1
            out[c] = simplify(size)
        else:
            out[c] = conv_out_dim(d[c], w[c], pad, a.strides[i], a.dilation[i])
        n = as_int(out[c])
        if n is not None and n <= 0:
            raise ValueError(
                f"{name}: the output would be empty along {c} (data {shape_str(dv)}, weight {shape_str(wv)})"
            )
    if ol.is_split:
        c = as_int(out["C"])
        if c is not None and c % max(ol.factor_of("C"), 1):
            raise ValueError(f"{name}: {c} output channels do not split into out_layout {a.out_layout!r}")
        return tensor([simplify(as_expr(v, "int64")) for v in ol.shape(out)], out_dtype, data.vdevice)
    return tensor([out[ch] for ch in ol.primal], out_dtype, data.vdevice)


def _parsed(layout_name: str, name: str):
    from ember.tir.data_layout import layout

    try:
        return layout(layout_name)
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None


register("nn.conv1d", lambda call, ctx: _infer_conv(call, ctx, "W", False), arg_names=("data", "weight"))
register("nn.conv2d", lambda call, ctx: _infer_conv(call, ctx, "HW", False), arg_names=("data", "weight"))
register("nn.conv3d", lambda call, ctx: _infer_conv(call, ctx, "DHW", False), arg_names=("data", "weight"))
register("nn.conv2d_transpose", lambda call, ctx: _infer_conv(call, ctx, "HW", True), arg_names=("data", "weight"))


def _dt(out_dtype):
    return None if out_dtype in (None, "", "void") else DataType(out_dtype)


def conv1d(data, weight, strides=1, padding=0, dilation=1, groups: int = 1, data_layout: str = "NCW",
           kernel_layout: str = "OIW", out_layout: str | None = None, out_dtype=None) -> Call:
    attrs = Conv1DAttrs(_tuple(strides, 1, "strides"), expand_padding(padding, 1), _tuple(dilation, 1, "dilation"),
                        int(groups), data_layout, kernel_layout, out_layout or data_layout, _dt(out_dtype))
    return make_call("nn.conv1d", [data, weight], attrs)


def conv2d(data, weight, strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups: int = 1,
           data_layout: str = "NCHW", kernel_layout: str = "OIHW", out_layout: str | None = None,
           out_dtype=None) -> Call:
    """2-D convolution; padding is 1, 2 (h, w) or 4 (top, left, bottom, right) values."""
    attrs = Conv2DAttrs(_tuple(strides, 2, "strides"), expand_padding(padding, 2), _tuple(dilation, 2, "dilation"),
                        int(groups), data_layout, kernel_layout, out_layout or data_layout, _dt(out_dtype))
    return make_call("nn.conv2d", [data, weight], attrs)


def conv3d(data, weight, strides=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups: int = 1,
           data_layout: str = "NCDHW", kernel_layout: str = "OIDHW", out_layout: str | None = None,
           out_dtype=None) -> Call:
    """3-D convolution; padding is 1, 3 or 6 (front, top, left, back, bottom, right) values."""
    attrs = Conv3DAttrs(_tuple(strides, 3, "strides"), expand_padding(padding, 3), _tuple(dilation, 3, "dilation"),
                        int(groups), data_layout, kernel_layout, out_layout or data_layout, _dt(out_dtype))
    return make_call("nn.conv3d", [data, weight], attrs)


def conv2d_transpose(data, weight, strides=(1, 1), padding=(0, 0), output_padding=(0, 0), dilation=(1, 1),
                     groups: int = 1, data_layout: str = "NCHW", kernel_layout: str = "IOHW",
                     out_layout: str | None = None, out_dtype=None) -> Call:
    """Transposed 2-D convolution; the weight is (in_channels, out_channels/groups, kh, kw)."""
    attrs = Conv2DTransposeAttrs(_tuple(strides, 2, "strides"), expand_padding(padding, 2),
                                 _tuple(output_padding, 2, "output_padding"), _tuple(dilation, 2, "dilation"),
                                 int(groups), data_layout, kernel_layout, out_layout or data_layout, _dt(out_dtype))
    return make_call("nn.conv2d_transpose", [data, weight], attrs)

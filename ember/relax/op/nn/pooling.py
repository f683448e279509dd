"""Pooling, padding and attention of ``relax.nn``: max_pool2d, avg_pool2d,
adaptive_avg_pool2d, pad, attention."""

from __future__ import annotations

from ember.ir import as_expr

from ..._arith import as_int, simplify
from ...expr import Call
from ...struct_info import TensorStructInfo, shape_values
from .._infer import tensor
from ..attrs import AdaptivePool2DAttrs, AttentionAttrs, PadAttrs, Pool2DAttrs
from ..base import make_call, register, shape_str, tensor_arg
from .convolution import _tuple, expand_padding

__all__ = ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "pad", "attention"]


def _layout_dims(call, x: TensorStructInfo, layout: str):
    if sorted(layout) != sorted("NCHW"):
        raise ValueError(f"{call.op.name}: layout {layout!r} is not supported; expected a permutation of 'NCHW'")
    if x.ndim not in (-1, 4):
        raise ValueError(f"{call.op.name}: data must have 4 dims, got {x.ndim}")
    values = shape_values(x)
    return None if values is None else {c: values[layout.index(c)] for c in "NCHW"}


def _infer_pool(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    a = call.attrs
    d = _layout_dims(call, x, a.layout)
    if d is None:
        return tensor(None, x.dtype, x.vdevice, 4)
    out = {"N": d["N"], "C": d["C"]}
    for i, c in enumerate("HW"):
        pad = a.padding[i] + a.padding[i + 2]
        span = d[c] + pad - a.dilation[i] * (a.pool_size[i] - 1) - 1
        if a.ceil_mode:
            out[c] = simplify((span + a.strides[i] - 1) // a.strides[i] + 1)
        else:
            out[c] = simplify(span // a.strides[i] + 1)
        n = as_int(out[c])
        if n is not None and n <= 0:
            raise ValueError(f"{call.op.name}: pool_size {a.pool_size} is larger than the padded input {shape_str(shape_values(x))}")
    return tensor([out[c] for c in a.out_layout], x.dtype, x.vdevice)


register("nn.max_pool2d", _infer_pool, arg_names=("data",))
register("nn.avg_pool2d", _infer_pool, arg_names=("data",))


def _pool_attrs(pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout):
    return Pool2DAttrs(_tuple(pool_size, 2, "pool_size"), _tuple(strides, 2, "strides"), expand_padding(padding, 2),
                       _tuple(dilation, 2, "dilation"), bool(ceil_mode), bool(count_include_pad), layout,
                       out_layout or layout)


def max_pool2d(data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), ceil_mode: bool = False,
               count_include_pad: bool = False, layout: str = "NCHW", out_layout: str | None = None) -> Call:
    attrs = _pool_attrs(pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout)
    return make_call("nn.max_pool2d", [data], attrs)


def avg_pool2d(data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), ceil_mode: bool = False,
               count_include_pad: bool = False, layout: str = "NCHW", out_layout: str | None = None) -> Call:
    attrs = _pool_attrs(pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout)
    return make_call("nn.avg_pool2d", [data], attrs)


def _infer_adaptive(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    a = call.attrs
    d = _layout_dims(call, x, a.layout)
    if d is None:
        return tensor(None, x.dtype, x.vdevice, 4)
    if a.output_size is not None:
        d = dict(d, H=as_expr(a.output_size[0], "int64"), W=as_expr(a.output_size[1], "int64"))
    return tensor([d[c] for c in a.out_layout], x.dtype, x.vdevice)


register("nn.adaptive_avg_pool2d", _infer_adaptive, arg_names=("data",))


def adaptive_avg_pool2d(data, output_size=None, layout: str = "NCHW", out_layout: str | None = None) -> Call:
    size = None if output_size is None else _tuple(output_size, 2, "output_size")
    return make_call("nn.adaptive_avg_pool2d", [data], AdaptivePool2DAttrs(size, layout, out_layout or layout))


def _infer_pad(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    widths = call.attrs.pad_width
    if x.ndim == -1:
        return tensor(None, x.dtype, x.vdevice, -1)
    if len(widths) != 2 * x.ndim:
        raise ValueError(
            f"relax.nn.pad: pad_width needs 2 values per dim ({2 * x.ndim} for {x.ndim} dims), got {len(widths)}"
        )
    values = shape_values(x)
    if values is None:
        return tensor(None, x.dtype, x.vdevice, x.ndim)
    out = [simplify(v + widths[2 * i] + widths[2 * i + 1]) for i, v in enumerate(values)]
    return tensor(out, x.dtype, x.vdevice)


register("nn.pad", _infer_pad, arg_names=("data",))


def pad(data, pad_width, pad_mode: str = "constant", pad_value: float = 0.0) -> Call:
    """Pad ``data``; ``pad_width`` is (before_0, after_0, before_1, after_1, …) or pairs."""
    flat = []
    for w in pad_width:
        flat.extend(w if isinstance(w, list | tuple) else [w])
    return make_call("nn.pad", [data], PadAttrs(tuple(int(w) for w in flat), pad_mode, float(pad_value)))


def _infer_attention(call: Call, ctx) -> TensorStructInfo:
    q, k, v = (tensor_arg(call, i) for i in range(3))
    for what, info in (("query", q), ("key", k), ("value", v)):
        if info.ndim not in (-1, 4):
            raise ValueError(f"relax.nn.attention: {what} must be 4-D (batch, seq, heads, head_dim), got {info.ndim} dims")
    qv, kv, vv = shape_values(q), shape_values(k), shape_values(v)
    if qv is None or vv is None:
        return tensor(None, q.dtype, q.vdevice, 4)
    if kv is not None:
        for i, what in ((0, "batch"), (3, "head_dim")):
            a, b = as_int(qv[i]), as_int(kv[i])
            if a is not None and b is not None and a != b:
                raise ValueError(f"relax.nn.attention: query {shape_str(qv)} and key {shape_str(kv)} differ in {what}")
        a, b = as_int(kv[1]), as_int(vv[1])
        if a is not None and b is not None and a != b:
            raise ValueError(f"relax.nn.attention: key {shape_str(kv)} and value {shape_str(vv)} differ in sequence length")
    return tensor([qv[0], qv[1], qv[2], vv[3]], q.dtype, q.vdevice)


register("nn.attention", _infer_attention, arg_names=("query", "key", "value", "bias"))


def attention(query, key, value, bias=None, scale=None, causal_mask=None, window_size=None) -> Call:
    """Scaled dot-product attention over (batch, seq, heads, head_dim) tensors."""
    args = [query, key, value] + ([bias] if bias is not None else [])
    return make_call("nn.attention", args, AttentionAttrs(None if scale is None else float(scale), causal_mask, window_size))

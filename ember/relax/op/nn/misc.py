"""``relax.nn.pad`` and ``relax.nn.attention``."""

from __future__ import annotations

from ..._arith import as_int, simplify
from ...expr import Call
from ...struct_info import TensorStructInfo, shape_values
from .._infer import tensor
from ..attrs import AttentionAttrs, PadAttrs
from ..base import make_call, register, shape_str, tensor_arg

__all__ = ["pad", "attention"]


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

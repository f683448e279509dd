"""Scaled dot-product attention over (batch, seq, heads, head_dim) tensors, as Relax's
``nn.attention``: ``softmax(q·kᵀ * scale + bias, masked) · v`` per batch and head."""

from __future__ import annotations

from ember import te
from ember.ir import const
from ember.tir import op as tir_op

from .softmax import softmax

__all__ = ["attention"]


def _bias_index(bias, idx) -> list:
    """Indices into ``bias`` broadcast (right-aligned) to the (b, n, s, t) score shape."""
    tail = idx[len(idx) - bias.ndim:]
    return [0 if getattr(d, "value", None) == 1 else i for i, d in zip(tail, bias.shape)]


def attention(query, key, value, bias=None, scale=None, causal_mask: str | None = None) -> te.Tensor:
    """``query`` (B, S, N, H), ``key`` (B, T, N, H), ``value`` (B, T, N, Hv) → (B, S, N, Hv).

    ``causal_mask`` "TopLeft" keeps scores with ``t <= s``; "BottomRight" keeps
    ``t <= s + T - S``; ``scale`` defaults to ``1 / sqrt(H)``.
    """
    if causal_mask not in (None, "TopLeft", "BottomRight"):
        raise ValueError(f"topi.nn.attention: causal_mask must be None, 'TopLeft' or 'BottomRight', got {causal_mask!r}")
    b, s, n, h = query.shape
    t = key.shape[1]
    hv = value.shape[3]
    dtype = query.dtype
    if scale is None:
        factor = tir_op.rsqrt(tir_op.cast(h, dtype))
    else:
        factor = const(float(scale), dtype)
    kh = te.reduce_axis((0, h), name="kh")
    scores = te.compute(
        (b, n, s, t), lambda bi, ni, si, ti: te.sum(query(bi, si, ni, kh.var) * key(bi, ti, ni, kh.var), axis=kh),
        name="T_attention_scores",
    )
    offset = (t - s) if causal_mask == "BottomRight" else 0

    def scaled(bi, ni, si, ti):
        v = scores(bi, ni, si, ti) * factor
        if bias is not None:
            v = v + bias(*_bias_index(bias, (bi, ni, si, ti)))
        if causal_mask is not None:
            v = tir_op.if_then_else(ti <= si + offset, v, tir_op.min_value(dtype))
        return v

    logits = te.compute((b, n, s, t), scaled, name="T_attention_logits")
    probs = softmax(logits, axis=-1)
    kt = te.reduce_axis((0, t), name="kt")
    return te.compute(
        (b, s, n, hv), lambda bi, si, ni, hi: te.sum(probs(bi, ni, si, kt.var) * value(bi, kt.var, ni, hi), axis=kt),
        name="T_attention",
    )

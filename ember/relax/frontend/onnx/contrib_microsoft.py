"""``com.microsoft`` operators that ONNX Runtime's transformer optimiser emits: Gelu,
FastGelu, BiasGelu, QuickGelu, SkipLayerNormalization, EmbedLayerNormalization and the
fused multi-head Attention (packed QKV weights, mask index, past state).

All are compositions of Relax ops (layer_norm, gelu, matmul, softmax, …), checked
against ONNX Runtime, which implements these ops.
"""

from __future__ import annotations

import math

import numpy as np

from ember import relax
from ember.relax import op as R

from .common import ONNXImportError, dtype_of, ndim_of, static_shape
from .registry import converter

MS = "com.microsoft"


def _scalar(value, dtype: str):
    return relax.const(np.asarray(value, dtype=dtype))


@converter("Gelu", since=1, domain=MS)
def gelu(ctx, node, inputs, attrs):
    return R.nn.gelu(inputs[0])


@converter("BiasGelu", since=1, domain=MS)
def bias_gelu(ctx, node, inputs, attrs):
    return R.nn.gelu(ctx.emit(R.add(inputs[0], inputs[1])))


@converter("FastGelu", since=1, domain=MS)
def fast_gelu(ctx, node, inputs, attrs):
    x = inputs[0]
    if len(inputs) > 1 and inputs[1] is not None:
        x = ctx.emit(R.add(x, inputs[1]))
    return R.nn.gelu_tanh(x)


@converter("QuickGelu", since=1, domain=MS)
def quick_gelu(ctx, node, inputs, attrs):
    x = inputs[0]
    alpha = float(attrs.get("alpha", 1.702))
    return R.multiply(x, ctx.emit(R.sigmoid(ctx.emit(R.multiply(x, _scalar(alpha, dtype_of(x)))))))


def _layer_norm_stats(ctx, s, gamma, beta, eps: float, dtype: str):
    """(layer_norm(s), mean, 1/std) over the last axis, mean and inv_std with keepdims."""
    if beta is None:
        beta = ctx.emit(R.zeros_like(gamma))
    out = ctx.emit(R.nn.layer_norm(s, gamma, beta, axes=-1, epsilon=eps))
    mean = ctx.emit(R.mean(s, axis=[-1], keepdims=True))
    var = ctx.emit(R.variance(s, axis=[-1], keepdims=True))
    inv_std = ctx.emit(R.rsqrt(ctx.emit(R.add(var, _scalar(eps, dtype)))))
    return out, mean, inv_std


@converter("SkipLayerNormalization", since=1, domain=MS)
def skip_layer_norm(ctx, node, inputs, attrs):
    x, skip, gamma = inputs[0], inputs[1], inputs[2]
    beta = inputs[3] if len(inputs) > 3 else None
    bias = inputs[4] if len(inputs) > 4 else None
    s = ctx.emit(R.add(x, skip))
    if bias is not None:
        s = ctx.emit(R.add(s, bias))
    eps = float(attrs.get("epsilon", 1e-12))
    out, mean, inv_std = _layer_norm_stats(ctx, s, gamma, beta, eps, dtype_of(x))
    return [out, mean, inv_std, s]


@converter("SkipSimplifiedLayerNormalization", since=1, domain=MS)
def skip_simplified_layer_norm(ctx, node, inputs, attrs):
    x, skip, gamma = inputs[0], inputs[1], inputs[2]
    bias = inputs[3] if len(inputs) > 3 else None
    s = ctx.emit(R.add(x, skip))
    if bias is not None:
        s = ctx.emit(R.add(s, bias))
    eps = float(attrs.get("epsilon", 1e-12))
    ms = ctx.emit(R.mean(ctx.emit(R.multiply(s, s)), axis=[-1], keepdims=True))
    inv = ctx.emit(R.rsqrt(ctx.emit(R.add(ms, _scalar(eps, dtype_of(x))))))
    out = ctx.emit(R.multiply(ctx.emit(R.multiply(s, inv)), gamma))
    return [out, None, inv, s]


@converter("EmbedLayerNormalization", since=1, domain=MS)
def embed_layer_norm(ctx, node, inputs, attrs):
    ins = list(inputs) + [None] * (9 - len(inputs))
    ids, seg_ids, word, pos, seg, gamma, beta, mask, pos_ids = ins[:9]
    shape = static_shape(ids)
    if shape is None or len(shape) != 2:
        raise ONNXImportError("EmbedLayerNormalization: input_ids must be a 2-D tensor of known shape")
    batch, seq = shape
    emb = ctx.emit(R.take(word, ids, axis=0))
    if pos_ids is None:
        pos_ids = relax.const(np.broadcast_to(np.arange(seq, dtype="int64"), (batch, seq)).copy())
    pe = ctx.emit(R.take(pos, pos_ids, axis=0))
    if ndim_of(pe) == 2:
        pe = ctx.emit(R.expand_dims(pe, 0))
    emb = ctx.emit(R.add(emb, pe))
    if seg_ids is not None and seg is not None:
        emb = ctx.emit(R.add(emb, ctx.emit(R.take(seg, seg_ids, axis=0))))
    eps = float(attrs.get("epsilon", 1e-12))
    out = ctx.emit(R.nn.layer_norm(emb, gamma, beta, axes=-1, epsilon=eps))
    if mask is not None:
        mask_index = ctx.emit(R.sum(ctx.emit(R.astype(mask, "int32")), axis=[1]))
    else:
        mask_index = relax.const(np.full((batch,), seq, dtype="int32"))
    return [out, mask_index, emb]


def _heads(ctx, t, batch: int, seq: int, heads: int, size: int):
    """[B, S, H*D] → [B, H, S, D]."""
    t = ctx.emit(R.reshape(t, [batch, seq, heads, size]))
    return ctx.emit(R.permute_dims(t, [0, 2, 1, 3]))


def _mask_bias(ctx, mask, batch: int, seq: int, total: int, past: int, filter_value: float, dtype: str):
    """An additive [B, 1, S, T] (or broadcastable) bias from an ORT mask_index."""
    mshape = static_shape(mask)
    rank = len(mshape)
    if rank == 1 and mshape[0] == batch:  # right-padding: valid lengths per batch
        ends = ctx.emit(R.reshape(ctx.emit(R.astype(mask, "int64")), [batch, 1, 1, 1]))
        cols = relax.const(np.arange(total, dtype="int64").reshape(1, 1, 1, total))
        keep = ctx.emit(R.less(cols, ends))
    elif rank == 1 and mshape[0] == 2 * batch:  # end and start positions
        ends = ctx.emit(R.reshape(ctx.emit(R.astype(ctx.emit(R.strided_slice(mask, [0], [0], [batch])),
                                                     "int64")), [batch, 1, 1, 1]))
        starts = ctx.emit(R.reshape(ctx.emit(R.astype(ctx.emit(R.strided_slice(mask, [0], [batch], [2 * batch])),
                                                       "int64")), [batch, 1, 1, 1]))
        cols = relax.const(np.arange(total, dtype="int64").reshape(1, 1, 1, total))
        keep = ctx.emit(R.logical_and(ctx.emit(R.less(cols, ends)), ctx.emit(R.greater_equal(cols, starts))))
    elif rank == 2:  # raw 0/1 attention mask [B, T]
        keep = ctx.emit(R.reshape(ctx.emit(R.not_equal(mask, _scalar(0, dtype_of(mask)))), [batch, 1, 1, total]))
    elif rank == 3:  # [B, S, T]
        keep = ctx.emit(R.reshape(ctx.emit(R.not_equal(mask, _scalar(0, dtype_of(mask)))), [batch, 1, seq, total]))
    else:
        raise ONNXImportError(f"Attention: mask_index of shape {list(mshape)} is not supported")
    return ctx.emit(R.where(keep, _scalar(0.0, dtype), _scalar(filter_value, dtype)))


@converter("Attention", since=1, domain=MS)
def attention(ctx, node, inputs, attrs):
    ins = list(inputs) + [None] * (8 - len(inputs))
    x, weights, bias, mask, past, rel_bias = ins[:6]
    if ins[6] is not None:
        raise ONNXImportError("Attention (com.microsoft): past_sequence_length is not supported")
    shape = static_shape(x)
    if shape is None or len(shape) != 3:
        raise ONNXImportError("Attention (com.microsoft): input must be [batch, sequence, hidden] of known shape")
    batch, seq, _ = shape
    heads = int(attrs["num_heads"])
    dtype = dtype_of(x)
    sizes = [int(v) for v in attrs.get("qkv_hidden_sizes", [])]
    if not sizes:
        width = static_shape(weights)[1]
        sizes = [width // 3] * 3
    qkv = ctx.emit(R.matmul(x, weights))
    if bias is not None:
        qkv = ctx.emit(R.add(qkv, bias))
    q, k, v = (ctx.emit(relax.TupleGetItem(ctx.emit(R.split(qkv, [sizes[0], sizes[0] + sizes[1]], axis=2)), i))
               for i in range(3))
    dq, dv = sizes[0] // heads, sizes[2] // heads
    q, k, v = _heads(ctx, q, batch, seq, heads, dq), _heads(ctx, k, batch, seq, heads, dq), \
        _heads(ctx, v, batch, seq, heads, dv)
    past_len = 0
    if past is not None:
        past_len = static_shape(past)[3]
        pk = ctx.emit(R.squeeze(ctx.emit(R.strided_slice(past, [0], [0], [1])), [0]))
        pv = ctx.emit(R.squeeze(ctx.emit(R.strided_slice(past, [0], [1], [2])), [0]))
        k = ctx.emit(R.concat([pk, k], axis=2))
        v = ctx.emit(R.concat([pv, v], axis=2))
    present = ctx.emit(R.concat([ctx.emit(R.expand_dims(k, 0)), ctx.emit(R.expand_dims(v, 0))], axis=0))
    total = past_len + seq
    scale = float(attrs.get("scale", 0.0)) or 1.0 / math.sqrt(dq)
    scores = ctx.emit(R.matmul(q, ctx.emit(R.permute_dims(k, [0, 1, 3, 2]))))
    scores = ctx.emit(R.multiply(scores, _scalar(scale, dtype)))
    filter_value = float(attrs.get("mask_filter_value", -10000.0))
    if mask is not None:
        scores = ctx.emit(R.add(scores, _mask_bias(ctx, mask, batch, seq, total, past_len, filter_value, dtype)))
    if rel_bias is not None:
        scores = ctx.emit(R.add(scores, rel_bias))
    if int(attrs.get("unidirectional", 0)):
        allowed = np.tril(np.ones((seq, total), dtype=bool), k=past_len)
        causal = np.where(allowed, 0.0, filter_value).astype(dtype)
        scores = ctx.emit(R.add(scores, relax.const(causal)))
    probs = ctx.emit(R.nn.softmax(scores, axis=-1))
    out = ctx.emit(R.matmul(probs, v))
    out = ctx.emit(R.permute_dims(out, [0, 2, 1, 3]))
    out = ctx.emit(R.reshape(out, [batch, seq, heads * dv]))
    return [out, present]

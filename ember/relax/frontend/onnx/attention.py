"""ONNX Attention (opset 23+) as one Relax composition: heads split for 3-D inputs, past
key/value concatenated (the ``present`` outputs), grouped-query heads repeated, scaled
``Q·Kᵀ`` (both sides by √scale, as the ONNX reference does), softcap, boolean or additive
mask (padded to the total key length), causal bias aligned to the end of the past, a
softmax that gives fully masked rows zeros, ``·V``, and the ``qk_matmul_output`` modes.

``nonpad_kv_seqlen`` (per-batch valid key lengths, the external-cache causal offset) and
the sliding windows (``left_window_size``/``right_window_size``) build run-time position
biases.  RotaryEmbedding, SwiGLU and the loss operators import through their ONNX
function bodies (no converter here).
"""

from __future__ import annotations

import math

import numpy as np

from ember import relax
from ember.relax import op as R

from .common import ONNXImportError, dtype_of, onnx_dtype, static_shape
from .registry import converter


def _const(value, dtype: str):
    return relax.const(np.asarray(value, dtype=dtype))


def _to_heads(ctx, x, heads: int):
    """[B, S, H*D] → [B, H, S, D]."""
    b, s, hidden = static_shape(x)
    x = ctx.emit(R.reshape(x, [b, s, heads, hidden // heads]))
    return ctx.emit(R.permute_dims(x, [0, 2, 1, 3]))


def _mask_bias(ctx, mask, total: int, dtype: str):
    """An additive bias from ``attn_mask`` (bool: -inf where False), padded to ``total`` keys."""
    mshape = static_shape(mask)
    if mshape is None:
        raise ONNXImportError("Attention: the attn_mask shape must be known at import")
    is_bool = dtype_of(mask) == "bool"
    if mshape[-1] < total:
        fill = np.zeros if is_bool else (lambda s, dtype: np.full(s, -np.inf, dtype))
        pad = fill(tuple(mshape[:-1]) + (total - mshape[-1],), dtype="bool" if is_bool else dtype_of(mask))
        mask = ctx.emit(R.concat([mask, relax.const(pad)], axis=-1))
    if is_bool:
        return ctx.emit(R.where(mask, _const(0, dtype), _const(-np.inf, dtype)))
    return mask if dtype_of(mask) == dtype else ctx.emit(R.astype(mask, dtype))


def _exp_and_sum(ctx, x, dtype: str):
    """``exp(x - rowmax)`` and its row sums, where an all ``-inf`` row gives zeros and sum 1."""
    neg_inf = _const(-np.inf, dtype)
    m = ctx.emit(R.max(x, axis=[-1], keepdims=True))
    m = ctx.emit(R.where(ctx.emit(R.equal(m, neg_inf)), _const(0, dtype), m))
    e = ctx.emit(R.exp(ctx.emit(R.subtract(x, m))))
    s = ctx.emit(R.sum(e, axis=[-1], keepdims=True))
    s = ctx.emit(R.where(ctx.emit(R.equal(s, _const(0, dtype))), _const(1, dtype), s))
    return e, s


def _position_bias(ctx, q_len: int, total: int, offset, causal: bool, left: int, right: int, dtype: str):
    """0/-inf bias from key positions allowed for each query: causal (key <= query + offset)
    and the sliding window ``[query + offset - left, query + offset + right]``; ``offset``
    is an int (the past length) or an int64 tensor [B, 1, 1, 1] (per-batch valid length - q_len)."""
    if not causal and left < 0 and right < 0:
        return None
    cols = relax.const(np.arange(total, dtype="int64").reshape(1, total))
    rows = relax.const(np.arange(q_len, dtype="int64").reshape(q_len, 1))
    if isinstance(offset, int):
        pos = relax.const((np.arange(q_len, dtype="int64") + offset).reshape(q_len, 1))
    else:
        pos = ctx.emit(R.add(rows, offset))
    diff = ctx.emit(R.subtract(pos, cols))  # query position - key position
    allowed = []
    if causal:
        allowed.append(ctx.emit(R.greater_equal(diff, _const(0, "int64"))))
    if left >= 0:
        allowed.append(ctx.emit(R.less_equal(diff, _const(left, "int64"))))
    if right >= 0:
        allowed.append(ctx.emit(R.greater_equal(diff, _const(-right, "int64"))))
    ok = allowed[0]
    for more in allowed[1:]:
        ok = ctx.emit(R.logical_and(ok, more))
    return ctx.emit(R.where(ok, _const(0, dtype), _const(-np.inf, dtype)))


def _matmul(ctx, a, b, dtype: str):
    """A matmul that accumulates 16-bit floats in float32 (as numpy does), rounded once."""
    if dtype in ("float16", "bfloat16"):
        return ctx.emit(R.astype(ctx.emit(R.matmul(a, b, out_dtype="float32")), dtype))
    return ctx.emit(R.matmul(a, b))


def _add(ctx, a, b):
    return b if a is None else (a if b is None else ctx.emit(R.add(a, b)))


@converter("Attention", since=23)
def attention(ctx, node, inputs, attrs):
    ins = list(inputs) + [None] * (7 - len(inputs))
    q, k, v, mask, past_k, past_v, nonpad = ins[:7]
    if (past_k is None) != (past_v is None):
        raise ONNXImportError("Attention: past_key and past_value must be given together")
    if nonpad is not None and past_k is not None:
        raise ONNXImportError("Attention: nonpad_kv_seqlen cannot be combined with past_key/past_value")
    dtype = dtype_of(q)
    rank = len(static_shape(q) or ())
    if rank == 3:
        if "q_num_heads" not in attrs or "kv_num_heads" not in attrs:
            raise ONNXImportError("Attention: 3-D inputs need the q_num_heads and kv_num_heads attributes")
        q = _to_heads(ctx, q, int(attrs["q_num_heads"]))
        k = _to_heads(ctx, k, int(attrs["kv_num_heads"]))
        v = _to_heads(ctx, v, int(attrs["kv_num_heads"]))
    elif rank != 4:
        raise ONNXImportError(f"Attention: Q must be 3-D or 4-D with a known shape, got rank {rank}")
    past_len = 0
    if past_k is not None:
        past_len = static_shape(past_k)[2]
        k = ctx.emit(R.concat([past_k, k], axis=2))
        v = ctx.emit(R.concat([past_v, v], axis=2))
    present_k, present_v = k, v
    qs, ks = static_shape(q), static_shape(k)
    q_heads, kv_heads, q_len, total = qs[1], ks[1], qs[2], ks[2]
    if q_heads != kv_heads:
        if q_heads % kv_heads:
            raise ONNXImportError(f"Attention: {q_heads} query heads are not a multiple of {kv_heads} key heads")
        k = ctx.emit(R.repeat(k, q_heads // kv_heads, axis=1))
        v = ctx.emit(R.repeat(v, q_heads // kv_heads, axis=1))
    scale = float(attrs["scale"]) if "scale" in attrs else 1.0 / math.sqrt(qs[3])
    root = _const(math.sqrt(scale), dtype)
    qk = _matmul(ctx, ctx.emit(R.multiply(q, root)),
                 ctx.emit(R.permute_dims(ctx.emit(R.multiply(k, root)), [0, 1, 3, 2])), dtype)
    softcap = float(attrs.get("softcap", 0.0))
    if softcap > 0:
        cap = _const(softcap, dtype)
        qk = ctx.emit(R.multiply(ctx.emit(R.tanh(ctx.emit(R.divide(qk, cap)))), cap))
    bias = None if mask is None else _mask_bias(ctx, mask, total, dtype)
    offset = past_len
    valid = None
    if nonpad is not None:
        valid = ctx.emit(R.reshape(ctx.emit(R.astype(nonpad, "int64")), [qs[0], 1, 1, 1]))
        offset = ctx.emit(R.subtract(valid, _const(q_len, "int64")))
    left, right = int(attrs.get("left_window_size", -1)), int(attrs.get("right_window_size", -1))
    bias = _add(ctx, bias, _position_bias(ctx, q_len, total, offset, bool(int(attrs.get("is_causal", 0))),
                                          left, right, dtype))
    if valid is not None:
        keys = relax.const(np.arange(total, dtype="int64").reshape(1, 1, 1, total))
        padding = ctx.emit(R.where(ctx.emit(R.less(keys, valid)), _const(0, dtype), _const(-np.inf, dtype)))
        bias = _add(ctx, bias, padding)
    biased = qk if bias is None else ctx.emit(R.add(qk, bias))
    # float16 softmax in float32 matches the ONNX reference (numpy) more closely; bfloat16 in bfloat16
    precision = "float32" if dtype == "float16" else dtype
    if attrs.get("softmax_precision"):
        precision = onnx_dtype(int(attrs["softmax_precision"]))
    logits = biased if precision == dtype else ctx.emit(R.astype(biased, precision))
    # only masks, valid lengths and windows can mask a whole row (causal keeps key 0)
    can_mask_rows = mask is not None or valid is not None or left >= 0 or right >= 0
    mode = int(attrs.get("qk_matmul_output_mode", 0))
    if mode not in (0, 1, 2, 3):
        raise ONNXImportError(f"Attention: qk_matmul_output_mode must be 0..3, got {mode}")
    probs = None
    if not can_mask_rows:
        probs = ctx.emit(R.nn.softmax(logits, axis=-1))
    else:
        e, total_e = _exp_and_sum(ctx, logits, precision)
        if precision == dtype == "float32" and mode != 3:
            # normalise after ·V: the division becomes the matmul's epilogue, not a prologue
            # recomputed for every output column
            y = ctx.emit(R.divide(_matmul(ctx, e, v, dtype), total_e))
        else:
            probs = ctx.emit(R.divide(e, total_e))
    if probs is not None:
        if precision != dtype:
            probs = ctx.emit(R.astype(probs, dtype))
        y = _matmul(ctx, probs, v, dtype)
    qk_out = {0: qk, 1: qk, 2: biased, 3: probs}[mode]
    if rank == 3:
        y = ctx.emit(R.permute_dims(y, [0, 2, 1, 3]))
        ys = static_shape(y)
        y = ctx.emit(R.reshape(y, [ys[0], ys[1], ys[2] * ys[3]]))
    return [y, present_k, present_v, qk_out]

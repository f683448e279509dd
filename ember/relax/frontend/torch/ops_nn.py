"""Linear-algebra, normalisation and attention converters: linear/addmm/mm/bmm/matmul/
baddbmm/einsum, batch/layer/group/instance/RMS norm (the ATen ``native_*`` forms return
their statistics as unused outputs), scaled dot-product attention (masks, causal, scale),
and the fused ops of PyTorch's transformer fast path (``_native_multi_head_attention``,
``_transformer_encoder_layer_fwd``) that Dynamo records for modules in inference mode."""

from __future__ import annotations

import math

from ember.relax import op as R

from .registry import converter


@converter("aten.linear.default")
def linear(ctx, x, weight, bias=None):
    return R.linear(x, weight, bias)


@converter("aten.mm.default", "aten.bmm.default", "aten.matmul.default")
def matmul(ctx, a, b):
    dtype = ctx.out_dtype()
    return R.matmul(ctx.operand(a, dtype), ctx.operand(b, dtype))


@converter("aten.addmm.default", "aten.baddbmm.default", "aten.addbmm.default")
def addmm(ctx, bias, a, b, beta=1, alpha=1):
    dtype = ctx.out_dtype()
    prod = ctx.emit(R.matmul(a, b))
    if "addbmm" in str(ctx.node.target) and "baddbmm" not in str(ctx.node.target):
        prod = ctx.emit(R.sum(prod, [0]))
    if alpha != 1:
        prod = ctx.emit(R.multiply(prod, ctx.const(alpha, dtype)))
    if beta == 0:
        return prod
    bias = ctx.operand(bias, dtype)
    if beta != 1:
        bias = ctx.emit(R.multiply(bias, ctx.const(beta, dtype)))
    return R.add(bias, prod)


@converter("aten.addmv.default")
def addmv(ctx, bias, mat, vec, beta=1, alpha=1):
    return addmm(ctx, bias, mat, vec, beta, alpha)


@converter("aten.dot.default", "aten.vdot.default", "aten.mv.default", "aten.outer.default",
           "aten.ger.default")
def dot(ctx, a, b):
    if "outer" in str(ctx.node.target) or "ger" in str(ctx.node.target):
        return R.multiply(ctx.emit(R.expand_dims(a, 1)), b)
    return R.matmul(a, b)


@converter("aten.einsum.default")
def einsum(ctx, equation, tensors, path=None):
    return R.einsum(list(tensors), equation)


# -- normalisation --------------------------------------------------------------------------

def _ones_or(ctx, t, n, value, dtype):
    if t is not None:
        return t
    return ctx.const([value] * n if isinstance(n, int) else value, dtype)


def _channel_param(ctx, t, x, value):
    c = ctx.shape(x)[1]
    return _ones_or(ctx, t, c, value, ctx.dtype(x))


def _batch_norm_eval(ctx, x, weight, bias, mean, var, eps):
    weight, bias = _channel_param(ctx, weight, x, 1.0), _channel_param(ctx, bias, x, 0.0)
    out = ctx.emit(R.nn.batch_norm(x, weight, bias, mean, var, 1, float(eps), training=False))
    return ctx.tuple_item(out, 0)


@converter("aten._native_batch_norm_legit_no_training.default")
def batch_norm_no_training(ctx, x, weight, bias, mean, var, momentum, eps):
    return [_batch_norm_eval(ctx, x, weight, bias, mean, var, eps), None, None]


@converter("aten.batch_norm.default", "aten._batch_norm_impl_index.default")
def batch_norm(ctx, x, weight, bias, mean, var, training, momentum, eps, *_):
    if training or mean is None:
        return _batch_norm_train(ctx, x, weight, bias, eps)
    return _batch_norm_eval(ctx, x, weight, bias, mean, var, eps)


@converter("aten._native_batch_norm_legit.default", "aten._native_batch_norm_legit.no_stats",
           "aten._native_batch_norm_legit_functional.default", "aten.native_batch_norm.default")
def native_batch_norm(ctx, x, weight, bias, *rest):
    key = str(ctx.node.target)
    if key == "aten.native_batch_norm.default":  # (…, running_mean, running_var, training, momentum, eps)
        mean, var, training, _, eps = rest
        if not training:
            return [_batch_norm_eval(ctx, x, weight, bias, mean, var, eps), None, None]
    eps = rest[-1]
    out = [_batch_norm_train(ctx, x, weight, bias, eps), None, None]
    return out + [None, None] if "functional" in key else out


def _batch_norm_train(ctx, x, weight, bias, eps):
    """Normalise with the batch's own statistics (training mode; running stats not updated)."""
    axes = [0] + list(range(2, ctx.ndim(x)))
    dtype = ctx.dtype(x)
    mean = ctx.emit(R.mean(x, axes, True))
    var = ctx.emit(R.variance(x, axes, True))
    out = ctx.emit(R.divide(ctx.emit(R.subtract(x, mean)),
                            ctx.emit(R.sqrt(ctx.emit(R.add(var, ctx.const(eps, dtype)))))))
    shape = [1, ctx.shape(x)[1]] + [1] * (ctx.ndim(x) - 2)
    if weight is not None:
        out = ctx.emit(R.multiply(out, ctx.emit(R.reshape(weight, shape))))
    if bias is not None:
        out = ctx.emit(R.add(out, ctx.emit(R.reshape(bias, shape))))
    return out


def _layer_norm(ctx, x, normalized_shape, weight, bias, eps):
    n = len(normalized_shape)
    axes = list(range(ctx.ndim(x) - n, ctx.ndim(x)))
    dtype = ctx.dtype(x)
    shape = list(normalized_shape)
    if weight is None:
        weight = ctx.emit(R.ones(shape, dtype))
    if bias is None:
        bias = ctx.emit(R.zeros(shape, dtype))
    return R.nn.layer_norm(x, weight, bias, axes, float(eps))


@converter("aten.layer_norm.default")
def layer_norm(ctx, x, normalized_shape, weight=None, bias=None, eps=1e-5, *_):
    return _layer_norm(ctx, x, normalized_shape, weight, bias, eps)


@converter("aten.native_layer_norm.default")
def native_layer_norm(ctx, x, normalized_shape, weight, bias, eps):
    return [ctx.emit(_layer_norm(ctx, x, normalized_shape, weight, bias, eps)), None, None]


@converter("aten.rms_norm.default")
def rms_norm(ctx, x, normalized_shape, weight=None, eps=None):
    n = len(normalized_shape)
    axes = list(range(ctx.ndim(x) - n, ctx.ndim(x)))
    if eps is None:
        eps = 1.1920928955078125e-07 if ctx.dtype(x) == "float32" else 1e-5
    if weight is None:
        weight = ctx.emit(R.ones(list(normalized_shape), ctx.dtype(x)))
    return R.nn.rms_norm(x, weight, axes, float(eps))


@converter("aten.group_norm.default")
def group_norm(ctx, x, num_groups, weight=None, bias=None, eps=1e-5, *_):
    c = ctx.shape(x)[1]
    weight, bias = _ones_or(ctx, weight, c, 1.0, ctx.dtype(x)), _ones_or(ctx, bias, c, 0.0, ctx.dtype(x))
    return R.nn.group_norm(x, weight, bias, int(num_groups), 1, list(range(2, ctx.ndim(x))), float(eps))


@converter("aten.native_group_norm.default")
def native_group_norm(ctx, x, weight, bias, n, c, hw, group, eps):
    return [ctx.emit(group_norm(ctx, x, group, weight, bias, eps)), None, None]


@converter("aten.instance_norm.default")
def instance_norm(ctx, x, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, *_):
    c = ctx.shape(x)[1]
    weight, bias = _ones_or(ctx, weight, c, 1.0, ctx.dtype(x)), _ones_or(ctx, bias, c, 0.0, ctx.dtype(x))
    return R.nn.instance_norm(x, weight, bias, 1, list(range(2, ctx.ndim(x))), float(eps))


# -- attention --------------------------------------------------------------------------------

@converter("aten.scaled_dot_product_attention.default", "aten._scaled_dot_product_flash_attention_for_cpu.default",
           "aten._scaled_dot_product_attention_math.default")
def sdpa(ctx, q, k, v, *rest):
    key = str(ctx.node.target)
    if "flash_attention_for_cpu" in key:  # (q, k, v, dropout_p, is_causal, *, attn_mask, scale)
        _, is_causal, mask, scale = (list(rest) + [None] * 4)[:4]
    else:  # (q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa)
        mask, _, is_causal, scale = (list(rest) + [None] * 4)[:4]
    out = _attention(ctx, q, k, v, mask, bool(is_causal), scale)
    if "flash_attention_for_cpu" in key or "math" in key:
        return [out, None]
    return out


def _attention(ctx, q, k, v, mask, is_causal, scale):
    dtype = ctx.dtype(q)
    qs, ks = ctx.shape(q), ctx.shape(k)
    nd = len(qs)
    if len(ks) == nd and nd >= 3 and isinstance(qs[-3], int) and isinstance(ks[-3], int) and qs[-3] != ks[-3]:
        rep = qs[-3] // ks[-3]  # grouped-query attention: repeat key/value heads
        k = ctx.emit(R.repeat(k, rep, nd - 3))
        v = ctx.emit(R.repeat(v, rep, nd - 3))
    if scale is None:
        d = qs[-1]
        scale = 1.0 / math.sqrt(d) if isinstance(d, int) else None
    kt = ctx.emit(R.permute_dims(k, list(range(nd - 2)) + [nd - 1, nd - 2]))
    scores = ctx.emit(R.matmul(q, kt))
    scores = ctx.emit(R.multiply(scores, ctx.const(scale, dtype)))
    lq, lk = qs[-2], ks[-2]
    if is_causal:
        ones = ctx.emit(R.full([lq, lk], ctx.const(1, "int8"), "int8"))
        causal = ctx.emit(R.astype(ctx.emit(R.tril(ones, 0)), "bool"))
        scores = ctx.emit(R.where(causal, scores, ctx.const(-math.inf, dtype)))
    if mask is not None:
        if ctx.dtype(mask) == "bool":
            scores = ctx.emit(R.where(mask, scores, ctx.const(-math.inf, dtype)))
        else:
            scores = ctx.emit(R.add(scores, ctx.operand(mask, dtype)))
    probs = ctx.emit(R.nn.softmax(scores, -1))
    return R.matmul(probs, v)


# -- PyTorch's transformer fast path (nn.MultiheadAttention / nn.TransformerEncoderLayer in
#    inference mode; Dynamo records them as these fused ops) ---------------------------------

def _rows(ctx, w, start, stop):
    return ctx.emit(R.strided_slice(w, [0], [start], [stop]))


def _heads(ctx, x, h):
    """(B, L, E) → (B, H, L, E/H)."""
    b, n, e = ctx.shape(x)
    return ctx.emit(R.permute_dims(ctx.emit(R.reshape(x, [b, n, h, e // h])), [0, 2, 1, 3]))


def _fast_path_mha(ctx, query, key, value, embed_dim, num_head, qkv_w, qkv_b, proj_w, proj_b, mask, mask_type):
    """Multi-head attention with packed in-projection weights; a boolean ``mask`` marks the
    positions *not* attended (mask_type 0: (L, S) attention mask, 1: (B, S) key padding,
    2: already (B, H, L, S)-broadcastable).  Returns (output, attention probabilities)."""
    if ctx.ndim(query) != 3:
        raise NotImplementedError(f"fast-path attention on a {ctx.ndim(query)}-D query (supported: (batch, seq, embed))")
    e, dtype = int(embed_dim), ctx.dtype(query)
    q, k, v = (ctx.emit(R.linear(x, _rows(ctx, qkv_w, i * e, (i + 1) * e), _rows(ctx, qkv_b, i * e, (i + 1) * e)))
               for i, x in enumerate((query, key, value)))
    q, k, v = (_heads(ctx, t, int(num_head)) for t in (q, k, v))
    scores = ctx.emit(R.matmul(q, ctx.emit(R.permute_dims(k, [0, 1, 3, 2]))))
    scores = ctx.emit(R.multiply(scores, ctx.const(1.0 / math.sqrt(e // int(num_head)), dtype)))
    if mask is not None:
        if mask_type == 1:  # key padding (B, S) → (B, 1, 1, S)
            b, s = ctx.shape(mask)
            mask = ctx.emit(R.reshape(mask, [b, 1, 1, s]))
        if ctx.dtype(mask) == "bool":
            scores = ctx.emit(R.where(mask, ctx.const(-math.inf, dtype), scores))
        else:
            scores = ctx.emit(R.add(scores, ctx.operand(mask, dtype)))
    probs = ctx.emit(R.nn.softmax(scores, -1))
    out = ctx.emit(R.permute_dims(ctx.emit(R.matmul(probs, v)), [0, 2, 1, 3]))
    b, n = ctx.shape(query)[:2]
    out = ctx.emit(R.reshape(out, [b, n, e]))
    return ctx.emit(R.linear(out, proj_w, proj_b)), probs


@converter("aten._native_multi_head_attention.default")
def native_multi_head_attention(ctx, query, key, value, embed_dim, num_head, qkv_w, qkv_b, proj_w, proj_b,
                                mask=None, need_weights=True, average_attn_weights=True, mask_type=None):
    out, probs = _fast_path_mha(ctx, query, key, value, embed_dim, num_head, qkv_w, qkv_b, proj_w, proj_b,
                                mask, mask_type)
    if not need_weights:
        return [out, None]
    return [out, ctx.emit(R.mean(probs, [1])) if average_attn_weights else probs]


@converter("aten._transformer_encoder_layer_fwd.default")
def transformer_encoder_layer(ctx, src, embed_dim, num_heads, qkv_w, qkv_b, proj_w, proj_b, use_gelu, norm_first,
                              eps, ln1_w, ln1_b, ln2_w, ln2_b, ff1_w, ff1_b, ff2_w, ff2_b, mask=None, mask_type=None):
    e = int(embed_dim)

    def norm(x, w, b):
        return ctx.emit(_layer_norm(ctx, x, [e], w, b, eps))

    def attention(x):
        return _fast_path_mha(ctx, x, x, x, e, num_heads, qkv_w, qkv_b, proj_w, proj_b, mask, mask_type)[0]

    def feed_forward(x):
        h = ctx.emit(R.linear(x, ff1_w, ff1_b))
        h = ctx.emit(R.nn.gelu(h) if use_gelu else R.nn.relu(h))
        return ctx.emit(R.linear(h, ff2_w, ff2_b))

    if norm_first:
        x = ctx.emit(R.add(src, attention(norm(src, ln1_w, ln1_b))))
        return R.add(x, feed_forward(norm(x, ln2_w, ln2_b)))
    x = norm(ctx.emit(R.add(src, attention(src))), ln1_w, ln1_b)
    return _layer_norm(ctx, ctx.emit(R.add(x, feed_forward(x))), [e], ln2_w, ln2_b, eps)

"""Two more tables of op cases (same ``(name, fn, inputs)`` form as ``torch_op_cases.py``):

``ATEN`` / ``ATEN_MATH`` / ``FAST_PATH``: converters that PyTorch's Python API no longer reaches once ops with converters are
kept out of the decomposition — ATen overloads called directly (``convolution``,
``native_layer_norm``, ``upsample_*2d.default``, ``reflection_pad*``, …), Python's bit
operators (``aten.__and__``…), ``fmax``/``fmin``/``fix``/``max.other``, and the fused ops of
PyTorch's transformer fast path (``_native_multi_head_attention``,
``_transformer_encoder_layer_fwd``), which Dynamo records for modules in inference mode.

``TVM_PARITY``: the computations of TVM's importer tests whose expected Relax differs from
ember's module (bicubic's cubic coefficient, ``take`` on the flattened tensor, ``cumsum``
with an output dtype, negative axes, …), checked against PyTorch's numbers instead.
"""

from __future__ import annotations

import torch
from torch.nn import functional as F

aten = torch.ops.aten
g = torch.Generator().manual_seed(1)


def r(*shape):
    return torch.randn(*shape, generator=g)


def ints(lo, hi, *shape):
    return torch.randint(lo, hi, shape, generator=g)


X = (2, 3, 4)
E, H = 8, 2  # fast-path attention: embedding width, heads
QKV_W, QKV_B, PROJ_W, PROJ_B = r(3 * E, E) * 0.3, r(3 * E) * 0.3, r(E, E) * 0.3, r(E) * 0.3
LN = [r(E) * 0.1 + 1, r(E) * 0.1, r(E) * 0.1 + 1, r(E) * 0.1]
FF = [r(16, E) * 0.3, r(16) * 0.3, r(E, 16) * 0.3, r(E) * 0.3]
PAD_KEYS = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])


def _mha(q, k, v, mask=None, mask_type=None, average=True):
    out, weights = torch._native_multi_head_attention(q, k, v, E, H, QKV_W, QKV_B, PROJ_W, PROJ_B, mask, True,
                                                      average, mask_type)
    return out, weights


def _encoder_layer(x, norm_first, gelu, mask=None, mask_type=None):
    return torch._transformer_encoder_layer_fwd(x, E, H, QKV_W, QKV_B, PROJ_W, PROJ_B, gelu, norm_first, 1e-5, *LN,
                                                *FF, mask, mask_type)


NANS = torch.tensor([1.0, float("nan"), -2.0, float("nan")])

ATEN = [
    ("convolution", lambda x, w, b: aten.convolution(x, w, b, [2, 1], [1, 0], [1, 1], False, [0, 0], 1),
     (r(1, 3, 6, 5), r(4, 3, 3, 3), r(4))),
    ("convolution_transposed", lambda x, w: aten.convolution(x, w, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1),
     (r(1, 3, 4, 4), r(3, 2, 3, 3))),
    ("_convolution", lambda x, w: aten._convolution(x, w, None, [1], [1], [1], False, [0], 1, False, False, True,
                                                    True), (r(1, 2, 7), r(3, 2, 3))),
    ("constant_pad_nd", lambda x: aten.constant_pad_nd(x, [1, 2, 0, 1], 0.25), (r(1, 2, 3, 4),)),
    ("reflection_pad1d", lambda x: aten.reflection_pad1d(x, [2, 1]), (r(1, 2, 5),)),
    ("reflection_pad2d", lambda x: aten.reflection_pad2d(x, [1, 2, 2, 0]), (r(1, 2, 4, 5),)),
    ("reflection_pad3d", lambda x: aten.reflection_pad3d(x, [1, 1, 0, 1, 1, 0]), (r(1, 1, 3, 3, 4),)),
    ("replication_pad1d", lambda x: aten.replication_pad1d(x, [0, 3]), (r(1, 2, 4),)),
    ("replication_pad2d", lambda x: aten.replication_pad2d(x, [2, 1, 1, 2]), (r(1, 2, 3, 4),)),
    ("replication_pad3d", lambda x: aten.replication_pad3d(x, [1, 0, 0, 2, 1, 1]), (r(1, 1, 2, 3, 3),)),
    ("upsample_nearest2d", lambda x: aten.upsample_nearest2d(x, [5, 7]), (r(1, 2, 3, 4),)),
    ("upsample_bilinear2d", lambda x: aten.upsample_bilinear2d(x, [5, 6], True), (r(1, 2, 3, 4),)),
    ("upsample_bicubic2d", lambda x: aten.upsample_bicubic2d(x, [6, 8], False), (r(1, 2, 3, 4),)),
    ("native_layer_norm", lambda x, w, b: aten.native_layer_norm(x, [4], w, b, 1e-5)[0], (r(*X), r(4), r(4))),
    ("native_group_norm", lambda x, w, b: aten.native_group_norm(x, w, b, 2, 4, 9, 2, 1e-5)[0],
     (r(2, 4, 3, 3), r(4), r(4))),
    ("native_dropout_eval", lambda x: aten.native_dropout(x, 0.5, False)[0] * 2, (r(*X),)),
    ("log_sigmoid_forward", lambda x: aten.log_sigmoid_forward(x)[0], (r(*X) * 5,)),
    ("scalar_tensor", lambda x: x * torch.scalar_tensor(2.5), (r(*X),)),
]

ATEN_MATH = [
    ("addmv", lambda b, m, v: torch.addmv(b, m, v, beta=0.5, alpha=2.0), (r(3), r(3, 4), r(4))),
    ("expand_as", lambda a, b: a.expand_as(b) + b, (r(1, 3, 1), r(*X))),
    ("select_scatter", lambda a, b: torch.select_scatter(a, b, 1, 2), (r(*X), r(2, 4))),
    ("slice_scatter", lambda a, b: torch.slice_scatter(a, b, 2, 1, 4, 2), (r(*X), r(2, 3, 2))),
    ("and", lambda a, b: a & b, (ints(0, 16, 2, 5), ints(0, 16, 2, 5))),
    ("or", lambda a, b: a | b, (ints(0, 16, 2, 5), ints(0, 16, 2, 5))),
    ("xor", lambda a, b: a ^ b, (ints(0, 16, 2, 5), ints(0, 16, 2, 5))),
    ("lshift", lambda a, b: a << b, (ints(0, 16, 2, 5), ints(0, 4, 2, 5))),
    ("rshift", lambda a, b: a >> b, (ints(0, 64, 2, 5), ints(0, 4, 2, 5))),
    ("bitwise_left_shift", torch.bitwise_left_shift, (ints(0, 16, 2, 5), ints(0, 4, 2, 5))),
    ("bitwise_right_shift", torch.bitwise_right_shift, (ints(-64, 64, 2, 5), ints(0, 4, 2, 5))),
    ("fmax_nan", torch.fmax, (NANS, torch.tensor([0.0, 3.0, float("nan"), float("nan")]))),
    ("fmin_nan", torch.fmin, (NANS, torch.tensor([0.0, 3.0, float("nan"), float("nan")]))),
    ("fix", torch.fix, (r(*X) * 3,)),
    ("max_other", torch.max, (r(*X), r(*X))),
    ("min_other", torch.min, (r(*X), r(3, 4))),
]

FAST_PATH = [
    ("native_mha", _mha, (r(2, 5, E), r(2, 5, E), r(2, 5, E))),
    ("native_mha_key_padding", lambda x: _mha(x, x, x, PAD_KEYS, 1, average=False), (r(2, 5, E),)),
    ("encoder_layer_norm_first_gelu", lambda x: _encoder_layer(x, True, True), (r(2, 5, E),)),
    ("encoder_layer_post_norm_relu", lambda x: _encoder_layer(x, False, False), (r(2, 5, E),)),
    ("encoder_layer_key_padding", lambda x: _encoder_layer(x, False, True, PAD_KEYS, 1), (r(2, 5, E),)),
]

TVM_PARITY = [
    ("interpolate_bicubic", lambda x: F.interpolate(x, scale_factor=2, mode="bicubic"), (r(1, 2, 3, 4),)),
    ("interpolate_nearest_exact_size", lambda x: F.interpolate(x, size=(6, 6)), (r(1, 1, 3, 3),)),
    ("take_flat", torch.take, (r(*X), torch.tensor([[0, 23], [5, 7]]))),
    ("cumsum_dtype", lambda x: torch.cumsum(x, 1, dtype=torch.int32), (ints(0, 9, 2, 3, 4),)),
    ("mean_keepdim_neg", lambda x: x.mean(-1, keepdim=True), (r(*X),)),
    ("argmax_keepdim", lambda x: x.argmax(-1, keepdim=True), (r(*X),)),
    ("argmin_all", lambda x: x.argmin(), (r(*X),)),
    ("std_dim", lambda x: x.std(1), (r(*X),)),
    ("var_keepdim_correction", lambda x: torch.var(x, (0, 2), correction=0, keepdim=True), (r(*X),)),
    ("squeeze_dims", lambda x: x.squeeze((1, 3)), (r(2, 1, 3, 1),)),
    ("unsqueeze_neg", lambda x: x.unsqueeze(-1), (r(*X),)),
    ("select_then_slices", lambda x: x[0, 1::2, :3], (r(3, 5, 4),)),
    ("empty_like_filled", lambda x: torch.empty_like(x).fill_(1.5) + x, (r(*X),)),
    ("to_same_dtype", lambda x: x.to(torch.float32) * 2, (r(*X),)),
    ("to_float64", lambda x: x.to(torch.float64), (r(*X),)),
    ("gather_neg_dim", lambda x, i: torch.gather(x, -1, i), (r(2, 3), torch.tensor([[2, 0], [1, 1]]))),
    ("avg_pool2d_ceil", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), (r(1, 2, 6, 6),)),
    ("addmm_alpha_beta", lambda b, x, y: torch.addmm(b, x, y, beta=0.0, alpha=0.5), (r(3, 5), r(3, 4), r(4, 5))),
    ("baddbmm_beta0", lambda b, x, y: torch.baddbmm(b, x, y, beta=0.0), (r(2, 3, 5), r(2, 3, 4), r(2, 4, 5))),
    ("unbind_dim1", lambda x: torch.unbind(x, 1), (r(*X),)),
    ("split_uneven", lambda x: torch.split(x, 3, dim=2), (r(2, 3, 7),)),
]

ATEN_MATH += [
    ("masked_scatter", lambda x, m, s: x.masked_scatter(m, s), (r(3, 4), r(3, 4) > 0, r(5, 4))),
    ("masked_scatter_broadcast_mask", lambda x, m, s: x.masked_scatter(m, s), (r(2, 3), r(3) > 0, r(7))),
]

"""Legalisers of the ``relax.nn`` ops in ``op/nn/torch_extra.py``: selu, softplus
(beta, threshold), conv1d_transpose (groups=1, dilation=1), nll_loss (mean/sum/none)."""

from __future__ import annotations

from ember import te, tir, topi

from .common import emit_te, out_dtype

__all__ = ["TABLE"]

_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _selu(bb, call):
    def f(x):
        def body(*i):
            v = x(*i)
            neg = tir.const(_SELU_ALPHA, x.dtype) * (tir.exp(v) - tir.const(1.0, x.dtype))
            return tir.const(_SELU_SCALE, x.dtype) * tir.Select(v > tir.const(0.0, x.dtype), v, neg)

        return te.compute(x.shape, body, name="selu")

    return emit_te(bb, call, f, call.args[0])


def _softplus(bb, call):
    beta, threshold = call.attrs.beta, call.attrs.threshold

    def f(x):
        def body(*i):
            bv = x(*i) * tir.const(beta, x.dtype)
            soft = tir.log1p(tir.exp(bv)) / tir.const(beta, x.dtype)
            return tir.Select(bv > tir.const(threshold, x.dtype), x(*i), soft)

        return te.compute(x.shape, body, name="softplus")

    return emit_te(bb, call, f, call.args[0])


def _conv1d_transpose(bb, call):
    a = call.attrs
    if a.groups != 1 or any(d != 1 for d in a.dilation):
        raise NotImplementedError("LegalizeOps: relax.nn.conv1d_transpose supports groups=1 and dilation=1, "
                                  f"got groups={a.groups}, dilation={tuple(a.dilation)}")
    if (a.data_layout, a.kernel_layout, a.out_layout) != ("NCW", "IOW", "NCW"):
        raise NotImplementedError("LegalizeOps: relax.nn.conv1d_transpose supports NCW data and IOW weight, got "
                                  f"{a.data_layout}/{a.kernel_layout}/{a.out_layout}")
    dtype = out_dtype(call)
    return emit_te(bb, call, lambda x, w: topi.nn.conv1d_transpose_ncw(x, w, a.strides[0], list(a.padding), dtype,
                                                                      a.output_padding[0]), *call.args)


def _nll_loss(bb, call):
    a = call.attrs

    def f(pred, target, weights=None):
        return topi.nn.nll_loss(pred, target, weights, a.reduction, a.ignore_index)

    return emit_te(bb, call, f, *call.args)


TABLE = {"relax.nn.selu": _selu, "relax.nn.softplus": _softplus, "relax.nn.conv1d_transpose": _conv1d_transpose,
         "relax.nn.nll_loss": _nll_loss}

"""Legalisers of ``relax.nn`` activations and normalisations: relu, gelu(_tanh), silu,
leakyrelu, softmax, log_softmax, dropout (inference: identity and a mask of ones),
layer_norm, rms_norm, batch_norm (inference formula with the moving statistics, as the
reference does), group_norm."""

from __future__ import annotations

from ember import topi

from .common import Legalizer, emit_te

__all__ = ["TABLE"]


def _unary(fn) -> Legalizer:
    return lambda bb, call: emit_te(bb, call, fn, call.args[0])


def _leakyrelu(bb, call):
    return emit_te(bb, call, lambda x: topi.nn.leaky_relu(x, call.attrs.alpha), call.args[0])


def _softmax(fn) -> Legalizer:
    return lambda bb, call: emit_te(bb, call, lambda x: fn(x, call.attrs.axis), call.args[0])


def _dropout(bb, call):
    return emit_te(bb, call, lambda x: [topi.identity(x), topi.full_like(x, 1)], call.args[0])


def _layer_norm(bb, call):
    a = call.attrs

    def f(x, gamma, beta):
        return topi.nn.layer_norm(x, gamma if a.scale else None, beta if a.center else None,
                                  list(a.axes), a.epsilon)

    return emit_te(bb, call, f, *call.args)


def _rms_norm(bb, call):
    a = call.attrs
    return emit_te(bb, call, lambda x, w: topi.nn.rms_norm(x, w, list(a.axes), a.epsilon), *call.args)


def _batch_norm(bb, call):
    a = call.attrs

    def f(x, gamma, beta, mean, var):
        return topi.nn.batch_norm(x, gamma, beta, mean, var, a.axis, a.epsilon, a.center, a.scale,
                                  training=False)

    return emit_te(bb, call, f, *call.args)


def _with_center_and_scale(call):
    """``call.attrs``, refusing a norm without both its shift and its scale (no kernel for that)."""
    a = call.attrs
    if not (a.center and a.scale):
        raise NotImplementedError(f"LegalizeOps: {call.op.name} needs center=True and scale=True, "
                                  f"got center={a.center}, scale={a.scale}")
    return a


def _group_norm(bb, call):
    a = _with_center_and_scale(call)

    def f(x, gamma, beta):
        return topi.nn.group_norm(x, gamma, beta, a.num_groups, a.channel_axis, list(a.axes), a.epsilon)

    return emit_te(bb, call, f, *call.args)


TABLE: dict[str, Legalizer] = {
    "relax.nn.relu": _unary(topi.nn.relu),
    "relax.nn.gelu": _unary(topi.nn.gelu),
    "relax.nn.gelu_tanh": _unary(topi.nn.gelu_tanh),
    "relax.nn.silu": _unary(topi.nn.silu),
    "relax.nn.leakyrelu": _leakyrelu,
    "relax.nn.softmax": _softmax(topi.nn.softmax),
    "relax.nn.log_softmax": _softmax(topi.nn.log_softmax),
    "relax.nn.dropout": _dropout,
    "relax.nn.layer_norm": _layer_norm,
    "relax.nn.rms_norm": _rms_norm,
    "relax.nn.batch_norm": _batch_norm,
    "relax.nn.group_norm": _group_norm,
}


def _prelu(bb, call):
    return emit_te(bb, call, lambda x, alpha: topi.nn.prelu(x, alpha, call.attrs.axis), *call.args)


def _instance_norm(bb, call):
    a = _with_center_and_scale(call)

    def f(x, gamma, beta):
        return topi.nn.instance_norm(x, gamma, beta, a.channel_axis, list(a.axes), a.epsilon)

    return emit_te(bb, call, f, *call.args)


TABLE["relax.nn.prelu"] = _prelu
TABLE["relax.nn.instance_norm"] = _instance_norm

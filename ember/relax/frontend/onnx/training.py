"""ONNX converters: the optimiser update rules of ``ai.onnx.preview.training`` — Adagrad,
Momentum (standard and Nesterov) and Adam.

Each node updates n tensors at once: its inputs are the learning rate ``R``, the step
count ``T`` (both scalars), then n tensors per group (X, G, and the optimiser's state),
and its outputs the updated X and state tensors, group by group.  The rules are
elementwise; the step-dependent factors (Adagrad's decayed rate, Momentum's first-step
gradient weight, Adam's bias correction) are computed from the run-time ``T`` in float32.
"""

from __future__ import annotations

import numpy as np

from ... import op as R
from ...expr import const
from .common import dtype_of
from .registry import converter

_DOMAIN = "ai.onnx.preview.training"


def _f(value, like) -> object:
    return const(np.array(value, dtype=dtype_of(like) or "float32"))


def _groups(ctx, inputs, k: int, op: str):
    n, rest = divmod(len(inputs) - 2, k)
    if rest or n == 0:
        raise ctx.error(f"{op}: expected R, T and {k} groups of equally many tensors, got {len(inputs)} inputs")
    return [inputs[2 + i * n: 2 + (i + 1) * n] for i in range(k)]


def _scalars(ctx, inputs, like):
    """R and T as 0-d tensors of ``like``'s dtype."""
    dtype = dtype_of(like) or "float32"
    r = ctx.emit(R.reshape(inputs[0], []))
    t = ctx.emit(R.reshape(inputs[1], []))
    if dtype_of(r) != dtype:
        r = ctx.emit(R.astype(r, dtype))
    return r, ctx.emit(R.astype(t, dtype))


def _regularized(ctx, x, g, coefficient: float):
    if not coefficient:
        return g
    return ctx.emit(R.add(R.multiply(_f(coefficient, x), x), g))


@converter("Adagrad", since=1, domain=_DOMAIN)
def adagrad(ctx, node, inputs, attrs):
    xs, gs, hs = _groups(ctx, inputs, 3, "Adagrad")
    decay, eps = attrs.get("decay_factor", 0.0), attrs.get("epsilon", 1e-6)
    norm = attrs.get("norm_coefficient", 0.0)
    new_x, new_h = [], []
    for x, g, h in zip(xs, gs, hs, strict=True):
        r, t = _scalars(ctx, inputs, x)
        rate = ctx.emit(R.divide(r, R.add(_f(1, x), R.multiply(t, _f(decay, x)))))
        g_reg = _regularized(ctx, x, g, norm)
        h2 = ctx.emit(R.add(h, R.multiply(g_reg, g_reg)))
        scale = ctx.emit(R.add(R.sqrt(h2), _f(eps, x)))
        new_x.append(ctx.emit(R.subtract(x, R.divide(R.multiply(rate, g_reg), scale))))
        new_h.append(h2)
    return new_x + new_h


@converter("Momentum", since=1, domain=_DOMAIN)
def momentum(ctx, node, inputs, attrs):
    xs, gs, vs = _groups(ctx, inputs, 3, "Momentum")
    alpha, beta = attrs["alpha"], attrs["beta"]
    norm = attrs.get("norm_coefficient", 0.0)
    mode = attrs.get("mode", "standard")
    if mode not in ("standard", "nesterov"):
        raise ctx.error(f"Momentum: mode must be 'standard' or 'nesterov', got {mode!r}")
    new_x, new_v = [], []
    for x, g, v in zip(xs, gs, vs, strict=True):
        r, t = _scalars(ctx, inputs, x)
        b = ctx.emit(R.where(R.greater(t, _f(0, x)), _f(beta, x), _f(1, x)))  # the first step weighs 1
        g_reg = _regularized(ctx, x, g, norm)
        v2 = ctx.emit(R.add(R.multiply(_f(alpha, x), v), R.multiply(b, g_reg)))
        step = v2 if mode == "standard" else ctx.emit(R.add(g_reg, R.multiply(_f(alpha, x), v2)))
        new_x.append(ctx.emit(R.subtract(x, R.multiply(r, step))))
        new_v.append(v2)
    return new_x + new_v


@converter("Adam", since=1, domain=_DOMAIN)
def adam(ctx, node, inputs, attrs):
    xs, gs, vs, hs = _groups(ctx, inputs, 4, "Adam")
    alpha, beta = attrs.get("alpha", 0.9), attrs.get("beta", 0.999)
    eps = attrs.get("epsilon", 1e-6)
    norm, post = attrs.get("norm_coefficient", 0.0), attrs.get("norm_coefficient_post", 0.0)
    new_x, new_v, new_h = [], [], []
    for x, g, v, h in zip(xs, gs, vs, hs, strict=True):
        r, t = _scalars(ctx, inputs, x)
        g_reg = _regularized(ctx, x, g, norm)
        v2 = ctx.emit(R.add(R.multiply(_f(alpha, x), v), R.multiply(_f(1 - alpha, x), g_reg)))
        h2 = ctx.emit(R.add(R.multiply(_f(beta, x), h), R.multiply(_f(1 - beta, x), R.multiply(g_reg, g_reg))))
        denom = ctx.emit(R.add(R.sqrt(h2), _f(eps, x)))
        corrected = ctx.emit(R.divide(R.multiply(r, R.sqrt(R.subtract(_f(1, x), R.power(_f(beta, x), t)))),
                                      R.subtract(_f(1, x), R.power(_f(alpha, x), t))))
        rate = ctx.emit(R.where(R.greater(t, _f(0, x)), corrected, r))
        x2 = ctx.emit(R.subtract(x, R.multiply(rate, R.divide(v2, denom))))
        if post:
            x2 = ctx.emit(R.multiply(_f(1 - post, x), x2))
        new_x.append(x2)
        new_v.append(v2)
        new_h.append(h2)
    return new_x + new_v + new_h

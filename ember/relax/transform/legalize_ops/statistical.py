"""Legalisers of reductions: sum/mean/max/min/prod (topi), variance and std (mean of
squared deviations, built here from two topi reductions), argmax/argmin."""

from __future__ import annotations

from ember import te, topi
from ember.tir import op as tir_op

from .common import Legalizer, emit_te

__all__ = ["TABLE", "variance"]


def _axes(call):
    axis = call.attrs.axis
    return None if axis is None else list(axis)


def _reduce(fn) -> Legalizer:
    return lambda bb, call: emit_te(bb, call, lambda x: fn(x, _axes(call), call.attrs.keepdims), call.args[0])


def variance(x: te.Tensor, axis=None, keepdims: bool = False, sqrt: bool = False) -> te.Tensor:
    """Population variance (or standard deviation) of ``x`` over ``axis``."""
    mean = topi.mean(x, axis, keepdims=True)

    def squared_diff(*i):
        d = x(*i) - mean(*[0 if _is_one(mean.shape[k]) else i[k] for k in range(x.ndim)])
        return d * d

    dev = te.compute(x.shape, squared_diff, name="T_squared_diff")
    var = topi.mean(dev, axis, keepdims)
    if not sqrt:
        return var
    return te.compute(var.shape, lambda *i: tir_op.sqrt(var(*i)), name="T_std")


def _is_one(d) -> bool:
    return getattr(d, "value", None) == 1


def _variance(sqrt: bool) -> Legalizer:
    def legalize(bb, call):
        return emit_te(bb, call, lambda x: variance(x, _axes(call), call.attrs.keepdims, sqrt), call.args[0])

    return legalize


def _arg(fn) -> Legalizer:
    return lambda bb, call: emit_te(bb, call, lambda x: fn(x, call.attrs.axis, call.attrs.keepdims), call.args[0])


TABLE: dict[str, Legalizer] = {
    "relax.sum": _reduce(topi.sum),
    "relax.mean": _reduce(topi.mean),
    "relax.max": _reduce(topi.max),
    "relax.min": _reduce(topi.min),
    "relax.prod": _reduce(topi.prod),
    "relax.variance": _variance(False),
    "relax.std": _variance(True),
    "relax.argmax": _arg(topi.argmax),
    "relax.argmin": _arg(topi.argmin),
}

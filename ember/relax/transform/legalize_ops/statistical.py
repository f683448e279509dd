"""Legalisers of reductions: sum/mean/max/min/prod, variance/std (population) and
argmax/argmin, each one topi reduction."""

from __future__ import annotations

from ember import topi

from .common import Legalizer, emit_te

__all__ = ["TABLE"]


def _axes(call):
    axis = call.attrs.axis
    return None if axis is None else list(axis)


def _reduce(fn) -> Legalizer:
    return lambda bb, call: emit_te(bb, call, lambda x: fn(x, _axes(call), call.attrs.keepdims), call.args[0])


def _arg(fn) -> Legalizer:
    return lambda bb, call: emit_te(bb, call, lambda x: fn(x, call.attrs.axis, call.attrs.keepdims), call.args[0])


TABLE: dict[str, Legalizer] = {
    "relax.sum": _reduce(topi.sum),
    "relax.mean": _reduce(topi.mean),
    "relax.max": _reduce(topi.max),
    "relax.min": _reduce(topi.min),
    "relax.prod": _reduce(topi.prod),
    "relax.variance": _reduce(topi.variance),
    "relax.std": _reduce(topi.std),
    "relax.argmax": _arg(topi.argmax),
    "relax.argmin": _arg(topi.argmin),
}

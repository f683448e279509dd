"""Activation functions: relu, leaky_relu, prelu, gelu, silu."""

from __future__ import annotations

import math

from ember import te
from ember.ir import const
from ember.tir import op as tir_op

from ..utils import compute_ax

__all__ = ["relu", "leaky_relu", "prelu", "gelu", "gelu_tanh", "silu"]


def relu(x) -> te.Tensor:
    """``max(x, 0)`` elementwise."""
    return compute_ax(x.shape, lambda *i: tir_op.max(x(*i), const(0, x.dtype)), "T_relu", tag="elemwise")


def leaky_relu(x, alpha: float) -> te.Tensor:
    """``x`` where positive, ``alpha * x`` elsewhere."""
    def f(*i):
        v = x(*i)
        return tir_op.Select(const(0, x.dtype) < v, v, v * const(alpha, x.dtype))

    return compute_ax(x.shape, f, "T_leaky_relu", tag="elemwise")


def prelu(x, slope, axis: int = 1) -> te.Tensor:
    """Leaky relu with a learned slope per channel ``axis``."""
    axis = axis + x.ndim if axis < 0 else axis

    def f(*i):
        v = x(*i)
        return tir_op.Select(v > const(0, x.dtype), v, v * slope(i[axis]))

    return compute_ax(x.shape, f, "T_prelu", tag="broadcast")


def gelu(x) -> te.Tensor:
    """``0.5 x (1 + erf(x / sqrt 2))``."""
    def f(*i):
        v = x(*i)
        half, one = const(0.5, x.dtype), const(1.0, x.dtype)
        return half * v * (one + tir_op.erf(v * const(1.0 / math.sqrt(2.0), x.dtype)))

    return compute_ax(x.shape, f, "T_gelu", tag="elemwise")


def gelu_tanh(x) -> te.Tensor:
    """The tanh approximation of gelu."""
    def f(*i):
        v = x(*i)
        c = const(math.sqrt(2.0 / math.pi), x.dtype)
        inner = c * (v + const(0.044715, x.dtype) * v * v * v)
        return const(0.5, x.dtype) * v * (const(1.0, x.dtype) + tir_op.tanh(inner))

    return compute_ax(x.shape, f, "T_gelu_tanh", tag="elemwise")


def silu(x) -> te.Tensor:
    """``x * sigmoid(x)``."""
    return compute_ax(x.shape, lambda *i: x(*i) * tir_op.sigmoid(x(*i)), "T_silu", tag="elemwise")

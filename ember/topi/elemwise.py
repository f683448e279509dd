"""Unary elementwise operators (math intrinsics, sign, clip, cast) and constant fills.

Each ``topi.<name>(x)`` is a compute named ``T_<name>`` applying the matching TIR
intrinsic to every element; math functions need float inputs (cast integers first).
"""

from __future__ import annotations

from ember import te
from ember.ir import DataType, PrimExpr, Select, as_expr, const
from ember.tir import op as tir_op

from .utils import as_shape, compute_ax

__all__ = [
    "negative", "sign", "identity", "logical_not", "bitwise_not", "clip", "cast", "full",
    "full_like", "zeros", "ones", "reinterpret", "fast_exp", "fast_tanh", "fast_erf", "elemwise_sum",
]

_INTRINSICS = (
    "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan",
    "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sigmoid", "erf",
    "floor", "ceil", "round", "trunc", "isnan", "isinf", "isfinite",
)


def _unary(fexpr, name: str):
    def op(x):
        if not isinstance(x, te.Tensor):
            return fexpr(as_expr(x))
        return compute_ax(x.shape, lambda *i: fexpr(x(*i)), f"T_{name}", tag="elemwise")

    op.__name__ = name
    op.__doc__ = f"Elementwise ``{name}`` of a tensor."
    return op


_g = globals()
for _name in _INTRINSICS:
    _g[_name] = _unary(getattr(tir_op, _name), _name)
__all__ += list(_INTRINSICS)

abs = _unary(tir_op.abs, "abs")  # noqa: A001 - TVM's name
__all__.append("abs")
fast_exp = _unary(tir_op.exp, "fast_exp")
fast_tanh = _unary(tir_op.tanh, "fast_tanh")
fast_erf = _unary(tir_op.erf, "fast_erf")
negative = _unary(lambda v: -v, "negative")
identity = _unary(lambda v: v, "identity")
logical_not = _unary(lambda v: tir_op.logical_not(v if v.dtype.is_bool else v != 0), "logical_not")
bitwise_not = _unary(lambda v: ~v, "bitwise_not")


def _sign(v: PrimExpr) -> PrimExpr:
    one, zero = const(1, v.dtype), const(0, v.dtype)
    return Select(v > zero, one, Select(v < zero, -one, zero))


sign = _unary(_sign, "sign")


def clip(x, a_min, a_max) -> te.Tensor:
    """Elements of ``x`` limited to ``[a_min, a_max]``."""
    def f(*i):
        v = x(*i)
        lo = a_min if isinstance(a_min, PrimExpr) else const(a_min, x.dtype)
        hi = a_max if isinstance(a_max, PrimExpr) else const(a_max, x.dtype)
        return tir_op.max(tir_op.min(v, hi), lo)

    return compute_ax(x.shape, f, "T_clip", tag="elemwise")


def cast(x, dtype) -> te.Tensor:
    """``x`` converted elementwise to ``dtype``."""
    dtype = DataType(dtype)
    if not isinstance(x, te.Tensor):
        return tir_op.cast(x, dtype)
    if dtype.is_bool:
        return compute_ax(x.shape, lambda *i: x(*i) != const(0, x.dtype), "T_cast", tag="elemwise")
    return compute_ax(x.shape, lambda *i: tir_op.cast(x(*i), dtype), "T_cast", tag="elemwise")


def elemwise_sum(xs) -> te.Tensor:
    """The elementwise sum of tensors of one shape (TVM's ``topi.elemwise_sum``)."""
    xs = list(xs)
    if not xs or any(not isinstance(x, te.Tensor) for x in xs):
        raise ValueError(f"topi.elemwise_sum: xs must be a non-empty list of tensors, got {xs!r}")
    shape = tuple(xs[0].shape)
    for pos, x in enumerate(xs[1:], 1):
        if len(x.shape) != len(shape):
            raise ValueError(f"topi.elemwise_sum: xs[{pos}] has {len(x.shape)} dims, expected {len(shape)} "
                             "like xs[0]")

    def f(*i):
        total = xs[0](*i)
        for x in xs[1:]:
            total = total + x(*i)
        return total

    return compute_ax(xs[0].shape, f, "T_elemwise_sum", tag="elemwise")


def reinterpret(x, dtype) -> te.Tensor:
    """``x``'s bits read as ``dtype`` (same width)."""
    dtype = DataType(dtype)
    if dtype.bits != x.dtype.bits:
        raise ValueError(f"topi.reinterpret: {x.dtype} and {dtype} have different widths")
    return compute_ax(x.shape, lambda *i: tir_op.reinterpret(dtype, x(*i)), "T_reinterpret", tag="elemwise")


def full(shape, dtype, fill_value) -> te.Tensor:
    """A tensor of ``shape`` filled with ``fill_value``."""
    value = tir_op.cast(as_expr(fill_value), dtype) if isinstance(fill_value, PrimExpr) else const(fill_value, dtype)
    return compute_ax(as_shape(shape), lambda *i: value, "T_full", tag="elemwise")


def full_like(x, fill_value) -> te.Tensor:
    """A tensor like ``x`` filled with ``fill_value``."""
    return full(x.shape, x.dtype, fill_value)


def zeros(shape, dtype="float32") -> te.Tensor:
    return full(shape, dtype, 0)


def ones(shape, dtype="float32") -> te.Tensor:
    return full(shape, dtype, 1)

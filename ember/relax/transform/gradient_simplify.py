"""Simplification the Gradient pass applies to each adjoint before binding it (as TVM's pass
does): a transposed matrix product becomes the product of the transposed operands in the
other order, ``(A @ B)^T = B^T @ A^T``, and chains of ``permute_dims`` through bound
variables fold into one.  The gradient of ``matmul(x^T, y^T)`` thus needs no transpose of a
product and no transposes of transposes."""

from __future__ import annotations

from ember.ir import Op

from .. import op as R
from ..expr import Call, Expr, Var

__all__ = ["simplify_adjoint"]


def _is_call(expr, name: str) -> bool:
    return isinstance(expr, Call) and isinstance(expr.op, Op) and expr.op.name == name


def _axes(call: Call, ndim: int) -> list[int]:
    axes = call.attrs.axes
    return list(range(ndim))[::-1] if axes is None else [int(a) % ndim for a in axes]


def _swaps_last_two(axes: list[int]) -> bool:
    n = len(axes)
    return n >= 2 and axes == list(range(n - 2)) + [n - 1, n - 2]


def _bound(bb, expr: Expr) -> Expr:
    """The value ``expr`` is bound to (when it is a variable this builder bound)."""
    if isinstance(expr, Var):
        value = bb.lookup_binding(expr)
        if value is not None:
            return value
    return expr


def _permuted(bb, expr: Expr, axes: list[int]) -> Expr:
    """``permute_dims(expr, axes)`` with the permutations ``expr`` is bound to folded in."""
    inner = _bound(bb, expr)
    while _is_call(inner, "relax.permute_dims"):
        base = inner.args[0]
        inner_axes = _axes(inner, len(axes))
        axes = [inner_axes[a] for a in axes]
        expr, inner = base, _bound(bb, base)
    return expr if axes == list(range(len(axes))) else R.permute_dims(expr, axes)


def simplify_adjoint(bb, value: Expr) -> Expr:
    """``value`` rewritten when it transposes a bound product or a bound transpose."""
    if not _is_call(value, "relax.permute_dims"):
        return value
    arg = value.args[0]
    ndim = arg.struct_info.ndim
    axes = _axes(value, ndim)
    product = _bound(bb, arg)
    if _swaps_last_two(axes) and _is_call(product, "relax.matmul"):
        a, b = product.args
        if a.struct_info.ndim == ndim and b.struct_info.ndim == ndim:
            return R.matmul(_permuted(bb, b, axes), _permuted(bb, a, axes), product.attrs.out_dtype)
    folded = _permuted(bb, arg, axes)
    return folded if folded is not arg else value

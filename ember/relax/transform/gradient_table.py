"""Gradients of Relax operators, as data: op name → ``fn(orig_var, orig_call, output_grad, ctx)``
returning one adjoint expression per argument of ``orig_call`` (TVM's ``FPrimalGradient``).

``orig_var`` is the variable bound to the forward call's result (so ``exp`` can reuse it),
``output_grad`` the adjoint of that result, ``ctx`` the BlockBuilder of the adjoint function.
Arguments with no gradient (shapes, indices, masks) get ``relax.grad.no_grad(arg)``.  A
gradient of a broadcasting operand is summed back to the operand's shape (``collapse_sum_to``).
This file covers elementwise, creation, reduction, shape and indexing operators; neural
network operators are in ``gradient_table_nn.py``.  Both register on import.
"""

from __future__ import annotations

import math

from ember.ir import Op

from .. import op as R
from ..expr import Expr, ShapeExpr, const
from ..struct_info import shape_values

__all__ = ["TABLE", "register_gradients", "shape_of", "fit_shape", "dtype_of", "scalar"]


# -- helpers ------------------------------------------------------------------------------

def shape_of(expr: Expr) -> ShapeExpr:
    """The static shape of a tensor expression as a ShapeExpr."""
    values = shape_values(expr.struct_info)
    if values is None:
        raise ValueError(f"Gradient: the shape of {expr} must be known")
    return ShapeExpr(list(values))


def dtype_of(expr: Expr) -> str:
    return str(expr.struct_info.dtype)


def scalar(value: float, like: Expr) -> Expr:
    """A 0-d constant of ``like``'s dtype."""
    return const(value, dtype_of(like))


def _same_shape(a: Expr, b: Expr) -> bool:
    from .._arith import prove_equal

    va, vb = shape_values(a.struct_info), shape_values(b.struct_info)
    return va is not None and vb is not None and len(va) == len(vb) and all(
        prove_equal(x, y) for x, y in zip(va, vb))


def fit_shape(ctx, grad: Expr, target: Expr) -> Expr:
    """``grad`` summed back to ``target``'s shape when broadcasting made it larger."""
    grad = ctx.normalize(grad)
    if _same_shape(grad, target):
        return grad
    return R.collapse_sum_to(grad, shape_of(target))


def _identity(orig_var, orig_call, output_grad, ctx):
    return [output_grad]


def _no_grads(orig_var, orig_call, output_grad, ctx):
    return [R.grad.no_grad(a) for a in orig_call.args]


# -- elementwise unary --------------------------------------------------------------------

def _unary(rule):
    def grad(orig_var, orig_call, output_grad, ctx):
        return [rule(orig_call.args[0], orig_var, output_grad)]

    return grad


_UNARY = {
    "abs": lambda x, y, g: R.multiply(g, R.sign(x)),
    "cos": lambda x, y, g: R.negative(R.multiply(g, R.sin(x))),
    "exp": lambda x, y, g: R.multiply(g, y),
    "log": lambda x, y, g: R.divide(g, x),
    "negative": lambda x, y, g: R.negative(g),
    "sigmoid": lambda x, y, g: R.multiply(g, R.multiply(y, R.subtract(scalar(1.0, y), y))),
    "sin": lambda x, y, g: R.multiply(g, R.cos(x)),
    "sqrt": lambda x, y, g: R.divide(R.multiply(g, scalar(0.5, y)), y),
    "tanh": lambda x, y, g: R.multiply(g, R.subtract(scalar(1.0, y), R.multiply(y, y))),
    "square": lambda x, y, g: R.multiply(g, R.multiply(scalar(2.0, x), x)),
    "rsqrt": lambda x, y, g: R.multiply(g, R.multiply(scalar(-0.5, y), R.divide(y, x))),
    "log1p": lambda x, y, g: R.divide(g, R.add(scalar(1.0, x), x)),
    "sinh": lambda x, y, g: R.multiply(g, R.cosh(x)),
    "cosh": lambda x, y, g: R.multiply(g, R.sinh(x)),
    "tan": lambda x, y, g: R.multiply(g, R.add(scalar(1.0, y), R.multiply(y, y))),
    "erf": lambda x, y, g: R.multiply(g, R.multiply(scalar(2.0 / math.sqrt(math.pi), x),
                                                    R.exp(R.negative(R.multiply(x, x))))),
}


# -- elementwise binary (broadcasting) ------------------------------------------------------

def _binary(rule):
    def grad(orig_var, orig_call, output_grad, ctx):
        x, y = orig_call.args
        gx, gy = rule(x, y, orig_var, output_grad)
        return [fit_shape(ctx, gx, x), fit_shape(ctx, gy, y)]

    return grad


def _pick(mask, g):
    return R.where(mask, g, R.zeros_like(g))


_BINARY = {
    "add": lambda x, y, z, g: (g, g),
    "subtract": lambda x, y, z, g: (g, R.negative(g)),
    "multiply": lambda x, y, z, g: (R.multiply(g, y), R.multiply(g, x)),
    "divide": lambda x, y, z, g: (R.divide(g, y), R.negative(R.multiply(g, R.divide(z, y)))),
    "power": lambda x, y, z, g: (
        R.multiply(R.multiply(g, y), R.power(x, R.subtract(y, scalar(1.0, y)))),
        R.multiply(R.multiply(g, z), R.log(x)),
    ),
    "maximum": lambda x, y, z, g: (_pick(R.greater_equal(x, y), g), _pick(R.less(x, y), g)),
    "minimum": lambda x, y, z, g: (_pick(R.less_equal(x, y), g), _pick(R.greater(x, y), g)),
}

_NOT_DIFFERENTIABLE = [
    "equal", "greater", "greater_equal", "less", "less_equal", "not_equal",
    "zeros_like", "ones_like", "full_like", "zeros", "ones", "full",
]


# -- creation, reduction ------------------------------------------------------------------

def _triangle(op):
    def grad(orig_var, orig_call, output_grad, ctx):
        return [op(output_grad, orig_call.args[1])]

    return grad


def _clip(orig_var, orig_call, output_grad, ctx):
    """The gradient passes where ``min <= x <= max``."""
    x, a = orig_call.args[0], orig_call.attrs
    inside = R.logical_and(R.greater_equal(x, scalar(a.min, x)), R.less_equal(x, scalar(a.max, x)))
    return [_pick(inside, output_grad)]


def _reduced_axes(call) -> list[int]:
    ndim = call.args[0].struct_info.ndim
    axis = call.attrs.axis
    return list(range(ndim)) if axis is None else sorted(a % ndim for a in axis)


def _spread(call, output_grad) -> Expr:
    """The output gradient of a reduction broadcast back over the reduced axes."""
    x = call.args[0]
    g = output_grad
    if not call.attrs.keepdims and call.attrs.axis is not None:
        g = R.expand_dims(g, _reduced_axes(call))
    return R.broadcast_to(g, shape_of(x))


def _count(call) -> int:
    values = shape_values(call.args[0].struct_info)
    n = 1
    for a in _reduced_axes(call):
        n *= int(values[a])
    return n


def _extreme(orig_var, orig_call, output_grad, ctx):
    """max / min: the gradient goes to the positions holding the extreme (each of them on ties)."""
    x = orig_call.args[0]
    y = orig_var
    if not orig_call.attrs.keepdims and orig_call.attrs.axis is not None:
        y = R.expand_dims(y, _reduced_axes(orig_call))
    hit = R.equal(x, R.broadcast_to(y, shape_of(x)))
    return [_pick(hit, _spread(orig_call, output_grad))]


def _sum(orig_var, orig_call, output_grad, ctx):
    return [_spread(orig_call, output_grad)]


def _mean(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    return [R.divide(_spread(orig_call, output_grad), scalar(float(_count(orig_call)), x))]


def _variance(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    centred = R.subtract(x, R.mean(x, orig_call.attrs.axis, keepdims=True))
    factor = scalar(2.0 / _count(orig_call), x)
    return [R.multiply(_spread(orig_call, output_grad), R.multiply(centred, factor))]


# -- shape manipulation, indexing -----------------------------------------------------------

def _reshape(orig_var, orig_call, output_grad, ctx):
    x, shape = orig_call.args
    return [R.reshape(output_grad, shape_of(x)), R.grad.no_grad(shape)]


def _to_input_shape(orig_var, orig_call, output_grad, ctx):
    return [R.reshape(output_grad, shape_of(orig_call.args[0]))]


def _permute_dims(orig_var, orig_call, output_grad, ctx):
    axes = orig_call.attrs.axes
    if axes is None:
        return [R.permute_dims(output_grad)]
    ndim = len(axes)
    inverse = [0] * ndim
    for i, a in enumerate(axes):
        inverse[int(a) % ndim] = i
    return [R.permute_dims(output_grad, inverse)]


def _concat(orig_var, orig_call, output_grad, ctx):
    axis = orig_call.attrs.axis
    fields = orig_call.args[0].struct_info.fields
    ax = 0 if axis is None else axis % fields[0].ndim
    bounds, at = [], 0
    for f in fields[:-1]:
        at += int(shape_values(f)[ax])
        bounds.append(at)
    return [R.split(output_grad, bounds, ax)]


def _split(orig_var, orig_call, output_grad, ctx):
    return [R.concat(output_grad, orig_call.attrs.axis)]


def _cumsum(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    axis = orig_call.attrs.axis
    if axis is None:
        flipped = R.flip(R.cumsum(R.flip(output_grad, 0), 0), 0)
        return [R.reshape(flipped, shape_of(x))]
    return [R.flip(R.cumsum(R.flip(output_grad, axis), axis), axis)]


def _broadcast_to(orig_var, orig_call, output_grad, ctx):
    x, shape = orig_call.args
    return [R.collapse_sum_to(output_grad, shape_of(x)), R.grad.no_grad(shape)]


def _take(orig_var, orig_call, output_grad, ctx):
    x, indices = orig_call.args
    return [R.grad.take_backward(output_grad, x, indices, orig_call.attrs.axis), R.grad.no_grad(indices)]


def _where(orig_var, orig_call, output_grad, ctx):
    cond, x, y = orig_call.args
    zeros = R.zeros_like(output_grad)
    return [R.grad.no_grad(cond), fit_shape(ctx, R.where(cond, output_grad, zeros), x),
            fit_shape(ctx, R.where(cond, zeros, output_grad), y)]


def _astype(orig_var, orig_call, output_grad, ctx):
    return [R.astype(output_grad, dtype_of(orig_call.args[0]))]


def _swap_last(t: Expr) -> Expr:
    ndim = t.struct_info.ndim
    return R.permute_dims(t, list(range(ndim - 2)) + [ndim - 1, ndim - 2])


def _matmul(orig_var, orig_call, output_grad, ctx):
    """dA = G @ B^T, dB = A^T @ G over the (broadcast) batch dims; a 1-D operand is a row
    (A) or a column (B) matrix, its gradient reshaped back."""
    a, b = orig_call.args
    a2 = ctx.normalize(R.expand_dims(a, [0]) if a.struct_info.ndim == 1 else a)
    b2 = ctx.normalize(R.expand_dims(b, [1]) if b.struct_info.ndim == 1 else b)
    g_values = list(shape_values(ctx.normalize(output_grad).struct_info))
    if a.struct_info.ndim == 1:
        g_values.insert(len(g_values) - (0 if b.struct_info.ndim == 1 else 1), 1)
    if b.struct_info.ndim == 1:
        g_values.append(1)
    g = output_grad if len(g_values) == output_grad.struct_info.ndim else R.reshape(output_grad, g_values)
    ga = fit_shape(ctx, R.matmul(g, _swap_last(b2)), a2)
    gb = fit_shape(ctx, R.matmul(_swap_last(a2), g), b2)
    if a.struct_info.ndim == 1:
        ga = R.reshape(ga, shape_of(a))
    if b.struct_info.ndim == 1:
        gb = R.reshape(gb, shape_of(b))
    return [ga, gb]


TABLE = {
    **{f"relax.{name}": _unary(rule) for name, rule in _UNARY.items()},
    **{f"relax.{name}": _binary(rule) for name, rule in _BINARY.items()},
    **{f"relax.{name}": _no_grads for name in _NOT_DIFFERENTIABLE},
    "relax.triu": _triangle(R.triu),
    "relax.tril": _triangle(R.tril),
    "relax.clip": _clip,
    "relax.max": _extreme,
    "relax.min": _extreme,
    "relax.sum": _sum,
    "relax.mean": _mean,
    "relax.variance": _variance,
    "relax.reshape": _reshape,
    "relax.expand_dims": _to_input_shape,
    "relax.squeeze": _to_input_shape,
    "relax.flatten": _to_input_shape,
    "relax.permute_dims": _permute_dims,
    "relax.concat": _concat,
    "relax.split": _split,
    "relax.cumsum": _cumsum,
    "relax.broadcast_to": _broadcast_to,
    "relax.take": _take,
    "relax.where": _where,
    "relax.astype": _astype,
    "relax.matmul": _matmul,
    "relax.grad.start_checkpoint": _identity,
    "relax.grad.end_checkpoint": _identity,
    "relax.grad.no_grad": _no_grads,
}


def register_gradients(table: dict) -> None:
    """Set each op's ``FPrimalGradient`` attribute from ``table``."""
    for name, fn in table.items():
        if Op.is_registered(name):
            Op.get(name).set_attr("FPrimalGradient", fn, override=True)


register_gradients(TABLE)

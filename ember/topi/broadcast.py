"""Binary elementwise operators with numpy broadcasting, and ``broadcast_to``.

Shapes align from the right; a dimension of constant 1 stretches; a symbolic dimension
facing a constant one is assumed equal to it (as TVM does).  Either operand may be a
Python number or a PrimExpr, which acts as a scalar of the other operand's dtype.
"""

from __future__ import annotations

from ember import te
from ember.ir import IntImm, PrimExpr, as_expr, structural_equal
from ember.tir import op as tir_op

from .utils import as_shape, compute_ax

__all__ = [
    "broadcast_shape", "broadcast_to", "add", "subtract", "multiply", "divide", "floor_divide",
    "mod", "floor_mod", "trunc_divide", "trunc_mod", "power", "maximum", "minimum", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
]


def _dim_is(d, value: int) -> bool:
    return isinstance(d, IntImm) and d.value == value


def broadcast_shape(a: tuple, b: tuple, what: str = "broadcast") -> tuple:
    """The numpy-broadcast shape of ``a`` and ``b``; raises naming both shapes."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else None
        y = b[-i] if i <= len(b) else None
        if x is None or _dim_is(x, 1):
            out.append(y if y is not None else x)
        elif y is None or _dim_is(y, 1):
            out.append(x)
        elif isinstance(x, IntImm) and isinstance(y, IntImm):
            if x.value != y.value:
                raise ValueError(
                    f"{what}: shapes {_text(a)} and {_text(b)} cannot be broadcast together "
                    f"(dimension -{i}: {x.value} vs {y.value})"
                )
            out.append(x)
        elif isinstance(y, IntImm):
            out.append(y)
        elif isinstance(x, IntImm) or structural_equal(x, y, map_free_vars=False):
            out.append(x)
        else:
            out.append(tir_op.max(x, y))
    return tuple(reversed(out))


def _text(shape) -> str:
    return "(" + ", ".join(str(getattr(d, "value", d)) for d in shape) + ")"


def broadcast_index(tensor, out_indices) -> tuple:
    """The indices into ``tensor`` for the broadcast output position ``out_indices``."""
    skip = len(out_indices) - tensor.ndim
    return tuple(
        IntImm(out_indices[skip + d].dtype, 0) if _dim_is(dim, 1) else out_indices[skip + d]
        for d, dim in enumerate(tensor.shape)
    )


def _operand(x, dtype=None):
    if isinstance(x, te.Tensor):
        return x
    return as_expr(x, dtype) if dtype is not None and not isinstance(x, PrimExpr) else as_expr(x)


def _binary_op(fexpr, op_name: str):
    name = f"T_{op_name}"

    def op(lhs, rhs):
        lt, rt = isinstance(lhs, te.Tensor), isinstance(rhs, te.Tensor)
        if not lt and not rt:
            return fexpr(as_expr(lhs), as_expr(rhs))
        if lt and rt:
            shape = broadcast_shape(lhs.shape, rhs.shape, f"topi.{op_name}")
            return compute_ax(
                shape,
                lambda *idx: fexpr(lhs(*broadcast_index(lhs, idx)), rhs(*broadcast_index(rhs, idx))),
                name, tag="broadcast",
            )
        tensor = lhs if lt else rhs
        scalar = rhs if lt else lhs
        if not isinstance(scalar, PrimExpr | int | float | bool):
            raise TypeError(f"topi.{op_name}: operands must be tensors or scalars, got {type(scalar).__name__}")
        scalar = _scalar(scalar, tensor.dtype)
        if lt:
            return compute_ax(tensor.shape, lambda *idx: fexpr(tensor(*idx), scalar), name, tag="elemwise")
        return compute_ax(tensor.shape, lambda *idx: fexpr(scalar, tensor(*idx)), name, tag="elemwise")

    op.__name__ = op_name
    op.__doc__ = f"Elementwise ``{op_name}`` of two tensors (or a tensor and a scalar), broadcasting."
    return op


def _scalar(x, dtype):
    if isinstance(x, PrimExpr):
        return x
    if isinstance(x, float) and not dtype.is_float:
        return as_expr(x)
    return as_expr(x, dtype)


def _logic(cls_fn):
    return lambda a, b: cls_fn(_as_bool(a), _as_bool(b))


def _as_bool(x):
    return x if x.dtype.is_bool else x != 0


add = _binary_op(lambda a, b: a + b, "add")
subtract = _binary_op(lambda a, b: a - b, "subtract")
multiply = _binary_op(lambda a, b: a * b, "multiply")
divide = _binary_op(lambda a, b: a / b, "divide")
def _floor_div(a, b):
    """Integers: floordiv; floats: floor(a / b), as TVM's topi writes it."""
    return tir_op.floor(a / b) if a.dtype.is_float else tir_op.floordiv(a, b)


floor_divide = _binary_op(_floor_div, "floor_divide")
floor_mod = _binary_op(tir_op.floormod, "floor_mod")
trunc_divide = _binary_op(tir_op.truncdiv, "trunc_divide")
trunc_mod = _binary_op(tir_op.truncmod, "trunc_mod")
mod = _binary_op(tir_op.truncmod, "mod")
power = _binary_op(tir_op.power, "power")
maximum = _binary_op(tir_op.max, "maximum")
minimum = _binary_op(tir_op.min, "minimum")
equal = _binary_op(lambda a, b: a == b, "equal")
not_equal = _binary_op(lambda a, b: a != b, "not_equal")
less = _binary_op(lambda a, b: a < b, "less")
less_equal = _binary_op(lambda a, b: a <= b, "less_equal")
# written with the operands swapped (b < a), the form TVM's topi gives them
greater = _binary_op(lambda a, b: b < a, "greater")
greater_equal = _binary_op(lambda a, b: b <= a, "greater_equal")
logical_and = _binary_op(_logic(tir_op.logical_and), "logical_and")
logical_or = _binary_op(_logic(tir_op.logical_or), "logical_or")
logical_xor = _binary_op(_logic(lambda a, b: a != b), "logical_xor")
bitwise_and = _binary_op(tir_op.bitwise_and, "bitwise_and")
bitwise_or = _binary_op(tir_op.bitwise_or, "bitwise_or")
bitwise_xor = _binary_op(lambda a, b: a ^ b, "bitwise_xor")
left_shift = _binary_op(lambda a, b: a << b, "left_shift")
right_shift = _binary_op(lambda a, b: a >> b, "right_shift")


def broadcast_to(data, shape) -> te.Tensor:
    """``data`` repeated along stretched dimensions to ``shape``."""
    shape = as_shape(shape)
    if isinstance(data, te.Tensor):
        out = broadcast_shape(data.shape, shape, "topi.broadcast_to")
        if len(out) != len(shape) or any(
            isinstance(o, IntImm) and isinstance(s, IntImm) and o.value != s.value
            for o, s in zip(out, shape)
        ):
            raise ValueError(
                f"topi.broadcast_to: cannot broadcast shape {_text(data.shape)} to {_text(shape)}"
            )
        return compute_ax(shape, lambda *idx: data(*broadcast_index(data, idx)),
                          "T_broadcast_to", tag="broadcast")
    value = as_expr(data)
    return compute_ax(shape, lambda *idx: value, "T_broadcast_to", tag="broadcast")

"""ONNX converters: elementwise math — unary functions, broadcasting binary arithmetic,
comparisons, logical and bitwise ops, Cast/CastLike, Clip, Where, Mod, Pow, the variadic
Max/Min/Mean/Sum, IsInf/IsNaN, Sign, Round, Reciprocal."""

from __future__ import annotations

import numpy as np

from ... import op as R
from ...expr import PrimValue, ShapeExpr, const
from .common import dtype_of, np_dtype, onnx_dtype
from .lowbit import decode, encode, is_lowbit
from .registry import converter


def scalar(like, value):
    """A 0-d constant of ``like``'s dtype."""
    return const(np.array(value, dtype=np_dtype(dtype_of(like) or "float32")))


# ONNX op → (relax builder, first opset)
UNARY = {
    "Abs": (R.abs, 1), "Neg": (R.negative, 1), "Floor": (R.floor, 1), "Ceil": (R.ceil, 1),
    "Sqrt": (R.sqrt, 1), "Exp": (R.exp, 1), "Log": (R.log, 1), "Sin": (R.sin, 7),
    "Cos": (R.cos, 7), "Tan": (R.tan, 7), "Asin": (R.asin, 7), "Acos": (R.acos, 7),
    "Atan": (R.atan, 7), "Sinh": (R.sinh, 9), "Cosh": (R.cosh, 9), "Asinh": (R.asinh, 9),
    "Acosh": (R.acosh, 9), "Atanh": (R.atanh, 9), "Erf": (R.erf, 9), "Tanh": (R.tanh, 1),
    "Sigmoid": (R.sigmoid, 1), "Sign": (R.sign, 9), "Not": (R.logical_not, 1),
    "BitwiseNot": (R.bitwise_not, 18), "IsNaN": (R.isnan, 9),
}

# ONNX op → (relax builder, first opset)
BINARY = {
    "Add": (R.add, 1), "Sub": (R.subtract, 1), "Mul": (R.multiply, 1), "Div": (R.divide, 1),
    "Equal": (R.equal, 1), "Less": (R.less, 1), "Greater": (R.greater, 1),
    "LessOrEqual": (R.less_equal, 12), "GreaterOrEqual": (R.greater_equal, 12),
    "And": (R.logical_and, 1), "Or": (R.logical_or, 1), "Xor": (R.logical_xor, 1),
    "BitwiseAnd": (R.bitwise_and, 18), "BitwiseOr": (R.bitwise_or, 18),
    "BitwiseXor": (R.bitwise_xor, 18),
}


def _unary(fn):
    return lambda ctx, node, inputs, attrs: fn(inputs[0])


# integer arithmetic on shape values stays symbolic (PrimExpr operators)
SHAPE_ARITH = {"Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mul": lambda a, b: a * b,
               "Div": lambda a, b: a // b}


def _shape_operand(ctx, x):
    if isinstance(x, PrimValue):
        return x.value
    value = ctx.const_value(x)
    if value is not None and np.asarray(value).ndim == 0 and np.asarray(value).dtype.kind in "iu":
        return int(value)
    return None


def _binary(fn):
    def convert(ctx, node, inputs, attrs):
        a, b = inputs
        arith = SHAPE_ARITH.get(node.op_type)
        if arith is not None and (isinstance(a, PrimValue) or isinstance(b, PrimValue)):
            x, y = _shape_operand(ctx, a), _shape_operand(ctx, b)
            if x is not None and y is not None:
                from ember.arith import Analyzer

                return PrimValue(Analyzer().simplify(arith(x, y)))
        from .shape_values import as_tensor

        return fn(as_tensor(ctx, a), as_tensor(ctx, b))

    return convert


for _op, (_fn, _since) in UNARY.items():
    converter(_op, since=_since)(_unary(_fn))
for _op, (_fn, _since) in BINARY.items():
    converter(_op, since=_since)(_binary(_fn))


@converter("Reciprocal", since=1)
def reciprocal(ctx, node, inputs, attrs):
    return R.divide(scalar(inputs[0], 1), inputs[0])


@converter("Round", since=11)
def round_half_even(ctx, node, inputs, attrs):
    # ONNX rounds halves to even: r = round(x); fix the halves rounded away from even
    x = inputs[0]
    r = ctx.emit(R.floor(R.add(x, scalar(x, 0.5))))
    is_half = R.equal(R.subtract(r, x), scalar(x, 0.5))
    odd = R.not_equal(R.floor_mod(r, scalar(x, 2.0)), scalar(x, 0.0))
    return R.where(R.logical_and(is_half, odd), R.subtract(r, scalar(x, 1.0)), r)


@converter("IsInf", since=10)
def is_inf(ctx, node, inputs, attrs):
    x = inputs[0]
    neg, pos = attrs.get("detect_negative", 1), attrs.get("detect_positive", 1)
    inf = R.isinf(x)
    if neg and pos:
        return inf
    if not neg and not pos:
        return R.logical_and(inf, R.not_equal(x, x))
    side = R.greater(x, scalar(x, 0)) if pos else R.less(x, scalar(x, 0))
    return R.logical_and(inf, side)


@converter("BitShift", since=11)
def bit_shift(ctx, node, inputs, attrs):
    """Shifts by a negative amount or by the width or more (undefined in C and LLVM) give
    what numpy gives, as ONNX's reference: 0 to the left, the sign fill to the right."""
    x, amount = inputs
    left = attrs["direction"] == "LEFT"
    fn = R.left_shift if left else R.right_shift
    dtype = dtype_of(x) or "int32"
    if dtype == "bool":
        return fn(x, amount)
    width = np_dtype(dtype).itemsize * 8
    amount = ctx.emit(amount if dtype_of(amount) == dtype else R.astype(amount, dtype))
    outside = ctx.emit(R.greater_equal(amount, scalar(x, width)))
    if not dtype.startswith("uint"):
        outside = ctx.emit(R.logical_or(outside, R.less(amount, scalar(x, 0))))
    shifted = ctx.emit(fn(x, ctx.emit(R.where(outside, scalar(x, 0), amount))))
    fill = R.zeros_like(x) if left or dtype.startswith("uint") else R.right_shift(x, scalar(x, width - 1))
    return R.where(outside, ctx.emit(fill), shifted)


@converter("Mod", since=10)
def mod(ctx, node, inputs, attrs):
    a, b = inputs
    if attrs.get("fmod", 0):
        return R.mod(a, b)
    if (dtype_of(a) or "").startswith(("float", "bfloat")):
        # sign follows the divisor (numpy's mod): the C remainder, moved by b when signs differ
        r = ctx.emit(R.mod(a, b))
        zero = scalar(a, 0)
        fix = ctx.emit(R.logical_and(R.not_equal(r, zero), R.not_equal(R.less(r, zero), R.less(b, zero))))
        return R.where(fix, R.add(r, b), r)
    return R.floor_mod(a, b)


@converter("Pow", since=1)
def power(ctx, node, inputs, attrs):
    base, exp = inputs
    if dtype_of(exp) != dtype_of(base) or not (dtype_of(base) or "").startswith(("float", "bfloat")):
        if not (dtype_of(base) or "").startswith(("float", "bfloat")):
            # integer base: compute in float64 and cast back (ONNX keeps the base dtype)
            out = R.power(R.astype(base, "float64"), R.astype(exp, "float64"))
            return R.astype(out, dtype_of(base))
        exp = R.astype(exp, dtype_of(base))
    return R.power(base, exp)


@converter("Cast", since=1)
def cast(ctx, node, inputs, attrs):
    to = attrs["to"]
    if isinstance(to, int) and (is_lowbit(to) or ctx.input_lowbit(0) is not None):
        return _cast_lowbit(ctx, inputs[0], to, attrs)
    dtype = _target_dtype(ctx, to)
    x = inputs[0]
    if isinstance(x, ShapeExpr | PrimValue):
        if dtype == "int64":
            return x
        from .shape_values import as_tensor

        x = as_tensor(ctx, x)
    return R.astype(x, dtype)


def _target_dtype(ctx, to) -> str:
    if to == 8:  # STRING
        raise ctx.error("casts to or from strings are not supported (ember has no string tensors)")
    return onnx_dtype(to) if isinstance(to, int) else str(to).lower()


def _cast_lowbit(ctx, x, to: int, attrs):
    """A Cast with a low-bit source or target (see ``lowbit``): decode to float32 (or the
    integer value), then encode or ``astype`` to the target."""
    src = ctx.input_lowbit(0)
    if src is not None:
        if src == to:
            return x
        x = decode(ctx, x, src)
    if is_lowbit(to):
        return encode(ctx, x, to, bool(attrs.get("saturate", 1)), attrs.get("round_mode", "up"))
    return R.astype(x, _target_dtype(ctx, to))


@converter("CastLike", since=15)
def cast_like(ctx, node, inputs, attrs):
    to = ctx.input_lowbit(1) or ctx.elem_type(node.input[1])
    if ctx.input_lowbit(0) is not None or is_lowbit(to):
        return _cast_lowbit(ctx, inputs[0], to, attrs)
    if to == 8:
        raise ctx.error("casts to or from strings are not supported (ember has no string tensors)")
    return R.astype(inputs[0], dtype_of(inputs[1]))


@converter("Where", since=9)
def where(ctx, node, inputs, attrs):
    return R.where(*inputs)


@converter("Clip", since=1)
def clip(ctx, node, inputs, attrs):
    x = inputs[0]
    if ctx.opset < 11:
        lo, hi = attrs.get("min", -np.inf), attrs.get("max", np.inf)
        return R.clip(x, lo, hi)
    lo = inputs[1] if len(inputs) > 1 else None
    hi = inputs[2] if len(inputs) > 2 else None
    lo_v, hi_v = ctx.const_value(lo), ctx.const_value(hi)
    out = x
    if lo is not None:
        out = R.maximum(out, const(lo_v) if lo_v is not None else lo)
    if hi is not None:
        out = R.minimum(ctx.emit(out), const(hi_v) if hi_v is not None else hi)
    return out


def _variadic(fn):
    def convert(ctx, node, inputs, attrs):
        args = [x for x in inputs if x is not None]
        out = args[0]
        for x in args[1:]:
            out = ctx.emit(fn(out, x))
        if len(args) == 1:
            out = R.add(out, scalar(out, 0)) if node.op_type in ("Sum", "Mean") else fn(out, out)
        return out

    return convert


converter("Max", since=1)(_variadic(R.maximum))
converter("Min", since=1)(_variadic(R.minimum))
converter("Sum", since=1)(_variadic(R.add))


@converter("Mean", since=1)
def mean(ctx, node, inputs, attrs):
    args = [x for x in inputs if x is not None]
    total = _variadic(R.add)(ctx, node, args, attrs)
    return R.divide(ctx.emit(total), scalar(args[0], len(args)))

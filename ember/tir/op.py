"""Functions that build TIR expressions: math intrinsics, min/max, casts, selects, limits.

These are what ``te``, ``topi`` and TVMScript's ``T.*`` call: ``exp(x)`` is a Call of
the ``tir.exp`` intrinsic with ``x``'s dtype.
"""

from __future__ import annotations

import builtins
import math

from ember.ir import (
    And, Call, Cast, DataType, Div, FloatImm, FloorDiv, FloorMod, IntImm,
    Max, Min, Mod, Not, Op, Or, PrimExpr, Select, StringImm, as_expr, binary, const, promote,
)
from ember.ir.expr import DataTypeError
from ember.ir.intrinsics import BINARY_MATH, UNARY_MATH

__all__ = [
    "call_intrin", "call_extern", "call_pure_extern", "call_llvm_intrin", "call_llvm_pure_intrin",
    "if_then_else", "likely", "reinterpret", "all", "any", "min", "max", "abs", "floordiv",
    "floormod", "truncdiv", "truncmod", "indexdiv", "indexmod", "div", "min_value", "max_value",
    "infinity", "cast", "ceildiv", "isnan", "isinf", "isfinite", "clz", "popcount", "power",
    "round", "logical_and", "logical_or", "logical_not", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "shift_left", "shift_right", "Select", "ret", "erf", "exp",
    "log", "sqrt", "rsqrt", "tanh", "sigmoid", "pow", "fmod", "floor", "ceil", "trunc",
    "assume", "vectorlow", "vectorhigh", "vectorcombine", "call_packed", "call_cpacked",
]


def call_intrin(dtype, name: str, *args) -> Call:
    op = Op.get(name if "." in name else "tir." + name)
    return Call(DataType(dtype), op, tuple(as_expr(a) for a in args))


def call_extern(dtype, func_name: str, *args) -> Call:
    return Call(DataType(dtype), Op.get("tir.call_extern"), (StringImm(func_name),) + tuple(as_expr(a) for a in args))


def call_pure_extern(dtype, func_name: str, *args) -> Call:
    return Call(DataType(dtype), Op.get("tir.call_pure_extern"), (StringImm(func_name),) + tuple(as_expr(a) for a in args))


def call_llvm_intrin(dtype, name: str, *args) -> Call:
    return Call(DataType(dtype), Op.get("tir.call_llvm_intrin"), (StringImm(name),) + tuple(as_expr(a) for a in args))


def call_llvm_pure_intrin(dtype, name: str, *args) -> Call:
    return Call(DataType(dtype), Op.get("tir.call_llvm_pure_intrin"), (StringImm(name),) + tuple(as_expr(a) for a in args))


def _float_arg(x) -> PrimExpr:
    x = as_expr(x)
    if not x.dtype.is_float:
        raise TypeError(f"this math function needs a float argument, got {x.dtype} ({x!r}); cast it first")
    return x


def _round_half_even(v: float) -> float:
    """``nearbyint`` under the default rounding mode: halves go to the even neighbour."""
    return float(builtins.round(v)) if math.isfinite(v) else v


def _finite(fn):
    return lambda v: float(fn(v)) if math.isfinite(v) else v


_CONST_FOLD = {  # rounding intrinsics fold on constants, as in TVM
    "floor": _finite(math.floor),
    "ceil": _finite(math.ceil),
    "trunc": _finite(math.trunc),
    "round": _round_half_even,
    "nearbyint": _round_half_even,
}


def _unary(name):
    needs_float = name not in ("fabs", "popcount", "clz", "bitwise_not", "isnan", "isinf", "isfinite")
    returns_bool = name in ("isnan", "isinf", "isfinite")

    fold = _CONST_FOLD.get(name)

    def build(x, *rest, dtype=None, span=None):  # dtype: accepted as TVMScript does; the result follows x
        x = _float_arg(x) if needs_float else as_expr(x)
        dtype = DataType("bool").with_lanes(x.dtype.lanes) if returns_bool else x.dtype
        if fold is not None and isinstance(x, FloatImm):  # ceil(3.5) is the constant 4.0
            return FloatImm(dtype, fold(x.value))
        return Call(dtype, Op.get("tir." + name), (x,))

    build.__name__ = name
    build.__doc__ = f"The ``tir.{name}`` intrinsic applied to ``x``."
    return build


def _binary_intrin(name):
    def build(x, y, dtype=None, span=None):  # dtype: accepted as TVMScript prints it; the result follows x, y
        a, b = promote(as_expr(x) if not isinstance(x, PrimExpr) and isinstance(y, int | float) else x, y)
        return Call(a.dtype, Op.get("tir." + name), (a, b))

    build.__name__ = name
    build.__doc__ = f"The ``tir.{name}`` intrinsic applied to ``x`` and ``y``."
    return build


_g = globals()
for _name in UNARY_MATH:
    _g[_name] = _unary(_name)
for _name in BINARY_MATH:
    _g[_name] = _binary_intrin(_name)
__all__ += [n for n in UNARY_MATH + BINARY_MATH if n not in __all__]

_pow_any_dtype = _g["pow"]


def pow(x, y, dtype=None, span=None) -> PrimExpr:  # noqa: A001 - TVM's name
    """``x ** y`` (``tir.pow``): floats only, as in TVM (an integer power has no intrinsic)."""
    call = _pow_any_dtype(x, y)
    if not call.dtype.is_float:
        raise DataTypeError(f"power only applies to float operands, got {call.args[0].dtype} and "
                            f"{call.args[1].dtype}; cast them to a float dtype first")
    return call


power = pow


def isnan(x, span=None, dtype=None) -> PrimExpr:  # dtype: accepted as TVMScript prints it
    """Whether ``x`` is NaN (bool, ``x``'s lanes): False for integers, folded for a float
    constant, and a float16 operand is widened to float32 first, as TVM builds it."""
    x = as_expr(x)
    dtype = DataType("bool").with_lanes(x.dtype.lanes)
    if not x.dtype.is_float:
        return const(False, dtype)
    if isinstance(x, FloatImm):
        return const(math.isnan(x.value), dtype)
    if x.dtype.bits == 16:
        x = Cast(DataType("float32").with_lanes(x.dtype.lanes), x)
    return Call(dtype, Op.get("tir.isnan"), (x,))


def abs(x) -> PrimExpr:  # noqa: A001 - TVM's name
    x = as_expr(x)
    if x.dtype.is_uint or x.dtype.is_bool:
        return x
    if x.dtype.is_float:
        return Call(x.dtype, Op.get("tir.fabs"), (x,))
    return Select(x >= 0, x, -x)


def round(x, span=None, dtype=None) -> PrimExpr:  # noqa: A001 - TVM's name; dtype as TVMScript prints it
    x = _float_arg(x)
    if isinstance(x, FloatImm):
        return FloatImm(x.dtype, _round_half_even(x.value))
    return Call(x.dtype, Op.get("tir.round"), (x,))


def if_then_else(cond, t, f, span=None, dtype=None) -> PrimExpr:
    """``t if cond else f``, evaluating only the taken side (unlike ``Select``); ``dtype``
    (as TVMScript prints it) casts both sides first."""
    cond = as_expr(cond)
    if not cond.dtype.is_bool:
        raise DataTypeError(f"if_then_else needs a bool condition, got {cond.dtype} ({cond!r})")
    if dtype is not None:
        t, f = cast(as_expr(t), dtype), cast(as_expr(f), dtype)
    t, f = promote(t, f)
    if isinstance(cond, IntImm):  # a constant condition picks its side
        return t if cond.value else f
    return Call(t.dtype, Op.get("tir.if_then_else"), (cond, t, f))


def likely(cond, span=None, dtype=None) -> PrimExpr:  # dtype: as TVMScript prints it
    cond = as_expr(cond)
    return Call(cond.dtype, Op.get("tir.likely"), (cond,))


def reinterpret(dtype, value) -> PrimExpr:
    value = as_expr(value)
    if value.dtype == DataType(dtype):  # the same bits as the same type: the value itself, as TVM
        return value
    return Call(DataType(dtype), Op.get("tir.reinterpret"), (value,))


def ret(value, dtype=None, span=None) -> PrimExpr:  # dtype: as TVMScript prints it
    value = as_expr(value) if dtype is None else as_expr(value, dtype)
    return Call(value.dtype, Op.get("tir.ret"), (value,))


def _pack_buffer(buf) -> Call:
    """A Buffer passed to a packed function travels as a DLTensor built on the stack:
    ``tvm_stack_make_array(data, shape, strides or 0, ndim, dtype witness, elem_offset)``."""
    handle = DataType("handle")
    shape = Call(handle, Op.get("tir.tvm_stack_make_shape"), tuple(buf.shape))
    strides = (Call(handle, Op.get("tir.tvm_stack_make_shape"), tuple(buf.strides)) if buf.strides
               else const(0, "int32"))
    offset = buf.elem_offset if buf.elem_offset is not None else const(0, "int32")
    return Call(handle, Op.get("tir.tvm_stack_make_array"),
                (buf.data, shape, strides, const(len(buf.shape), "int32"), const(0, buf.dtype), offset))


def _packed(op_name: str, args) -> Call:
    from .buffer import Buffer

    if not args or not isinstance(args[0], str | StringImm):
        raise TypeError(f"{op_name}: the first argument must be the function's name")
    name = args[0] if isinstance(args[0], StringImm) else StringImm(args[0])
    rest = []
    for a in args[1:]:
        if isinstance(a, Buffer):
            rest.append(_pack_buffer(a))
        elif hasattr(a, "asobject") and not isinstance(a, PrimExpr):
            rest.append(as_expr(a.asobject()))
        else:
            rest.append(as_expr(a))
    return Call(DataType("int32"), Op.get(op_name), (name, *rest))


def call_packed(*args, span=None) -> Call:
    """A call of the packed function named ``args[0]`` with the other arguments (a Buffer
    travels as a DLTensor made on the stack, as TVM passes it)."""
    return _packed("tir.tvm_call_packed", args)


def call_cpacked(*args, span=None) -> Call:
    """``call_packed`` of a function linked into the same module (called directly)."""
    return _packed("tir.tvm_call_cpacked", args)


def assume(cond=None) -> PrimExpr:
    """``tir.assume(cond)``: lets the simplifier take ``cond`` as true where it is evaluated."""
    return Call(DataType("bool"), Op.get("tir.assume"), (as_expr(cond),))


def vectorlow(dtype, vec) -> PrimExpr:
    """The low half of the vector ``vec`` as a ``dtype`` vector."""
    return Call(DataType(dtype), Op.get("tir.vectorlow"), (as_expr(vec),))


def vectorhigh(dtype, vec) -> PrimExpr:
    """The high half of the vector ``vec`` as a ``dtype`` vector."""
    return Call(DataType(dtype), Op.get("tir.vectorhigh"), (as_expr(vec),))


def vectorcombine(dtype, vec1, vec2) -> PrimExpr:
    """The vectors ``vec1`` and ``vec2`` concatenated into one ``dtype`` vector."""
    return Call(DataType(dtype), Op.get("tir.vectorcombine"), (as_expr(vec1), as_expr(vec2)))


def cast(value, dtype) -> PrimExpr:
    dtype = DataType(dtype)
    value = as_expr(value)
    if value.dtype is dtype:
        return value
    if isinstance(value, FloatImm) and dtype.is_integer and not dtype.is_bool:
        if not math.isfinite(value.value):
            return Cast(dtype, value)  # inf/nan to an integer: left to the target, not folded
        return const(math.trunc(value.value), dtype)  # float → int truncates towards zero, as C
    if isinstance(value, IntImm | FloatImm):
        return const(value.value, dtype)
    return Cast(dtype, value)


def min(a, b, *rest) -> PrimExpr:  # noqa: A001
    out = binary(Min, a, b)
    for x in rest:
        out = binary(Min, out, x)
    return out


def max(a, b, *rest) -> PrimExpr:  # noqa: A001
    out = binary(Max, a, b)
    for x in rest:
        out = binary(Max, out, x)
    return out


def _fold_logic(cls, unit: bool, what: str, conds) -> PrimExpr:
    """``cond_0 op cond_1 op …`` for And (unit True) or Or (unit False): bool operands only; a
    constant equal to the unit drops out, the other constant decides the result."""
    if len(conds) == 1 and isinstance(conds[0], list | tuple):
        conds = conds[0]
    if not conds:
        raise ValueError(f"tir.{what} needs at least one condition")
    conds = [as_expr(c) for c in conds]
    for c in conds:
        if not c.dtype.is_bool:
            raise DataTypeError(f"tir.{what} needs bool conditions, got {c.dtype} ({c!r})")
    out = None
    for c in conds:
        if isinstance(c, IntImm) and bool(c.value) != unit:
            return c  # absorbing: all(…, False) is False, any(…, True) is True
        if isinstance(c, IntImm) and out is not None:
            continue
        if isinstance(out, IntImm):
            out = c
            continue
        out = c if out is None else cls(out, c)
    return out


def all(*conds) -> PrimExpr:  # noqa: A001
    """Logical AND of one or more bool conditions (constants fold)."""
    return _fold_logic(And, True, "all", conds)


def any(*conds) -> PrimExpr:  # noqa: A001
    """Logical OR of one or more bool conditions (constants fold)."""
    return _fold_logic(Or, False, "any", conds)


def logical_and(a, b) -> PrimExpr:
    return binary(And, a, b)


def logical_or(a, b) -> PrimExpr:
    return binary(Or, a, b)


def logical_not(a) -> PrimExpr:
    a = as_expr(a)
    if isinstance(a, IntImm):
        return const(not a.value)
    return Not(a)


def floordiv(a, b) -> PrimExpr:
    return binary(FloorDiv, a, b)


def floormod(a, b) -> PrimExpr:
    return binary(FloorMod, a, b)


def truncdiv(a, b) -> PrimExpr:
    return binary(Div, a, b)


def truncmod(a, b) -> PrimExpr:
    return binary(Mod, a, b)


indexdiv, indexmod = floordiv, floormod


def div(a, b) -> PrimExpr:
    return binary(Div, a, b)


def ceildiv(a, b) -> PrimExpr:
    return floordiv(as_expr(a) + (as_expr(b) if isinstance(b, PrimExpr) else b) - 1, b)


def bitwise_and(a, b) -> PrimExpr:
    a, b = promote(a, b)
    return Call(a.dtype, Op.get("tir.bitwise_and"), (a, b))


def bitwise_or(a, b) -> PrimExpr:
    a, b = promote(a, b)
    return Call(a.dtype, Op.get("tir.bitwise_or"), (a, b))


def min_value(dtype) -> PrimExpr:
    """The smallest value of ``dtype`` (−inf for floats)."""
    dtype = DataType(dtype)
    if dtype.is_float:
        return FloatImm(dtype, float("-inf"))
    if dtype.is_bool:
        return const(False)
    if dtype.is_uint:
        return IntImm(dtype, 0)
    return IntImm(dtype, -(2 ** (dtype.bits - 1)))


def max_value(dtype) -> PrimExpr:
    """The largest value of ``dtype`` (+inf for floats)."""
    dtype = DataType(dtype)
    if dtype.is_float:
        return FloatImm(dtype, float("inf"))
    if dtype.is_bool:
        return const(True)
    if dtype.is_uint:
        return IntImm(dtype, 2**dtype.bits - 1)
    return IntImm(dtype, 2 ** (dtype.bits - 1) - 1)


def infinity(dtype) -> PrimExpr:
    return max_value(dtype)




from . import builtin as _builtin  # noqa: E402 - device and packed-call builtins (tvm_fill_fragment, ptx_mma, …)
from .builtin import *  # noqa: E402,F403

__all__ += [n for n in _builtin.__all__ if n != "BUILTINS" and n not in __all__]

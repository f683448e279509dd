"""Functions that build TIR expressions: math intrinsics, min/max, casts, selects, limits.

These are what ``te``, ``topi`` and TVMScript's ``T.*`` call: ``exp(x)`` is a Call of
the ``tir.exp`` intrinsic with ``x``'s dtype.
"""

from __future__ import annotations

from ember.ir import (
    And, Call, Cast, DataType, Div, FloatImm, FloorDiv, FloorMod, IntImm,
    Max, Min, Mod, Not, Op, Or, PrimExpr, Select, StringImm, as_expr, binary, const, promote,
)
from ember.ir.intrinsics import BINARY_MATH, UNARY_MATH

__all__ = [
    "call_intrin", "call_extern", "call_pure_extern", "call_llvm_intrin", "call_llvm_pure_intrin",
    "if_then_else", "likely", "reinterpret", "all", "any", "min", "max", "abs", "floordiv",
    "floormod", "truncdiv", "truncmod", "indexdiv", "indexmod", "div", "min_value", "max_value",
    "infinity", "cast", "ceildiv", "isnan", "isinf", "isfinite", "clz", "popcount", "power",
    "round", "logical_and", "logical_or", "logical_not", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "shift_left", "shift_right", "Select", "ret", "erf", "exp",
    "log", "sqrt", "rsqrt", "tanh", "sigmoid", "pow", "fmod", "floor", "ceil", "trunc",
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


def _unary(name):
    needs_float = name not in ("fabs", "popcount", "clz", "bitwise_not", "isnan", "isinf", "isfinite")
    returns_bool = name in ("isnan", "isinf", "isfinite")

    def build(x, *rest, dtype=None, span=None):  # dtype: accepted as TVMScript does; the result follows x
        x = _float_arg(x) if needs_float else as_expr(x)
        dtype = DataType("bool").with_lanes(x.dtype.lanes) if returns_bool else x.dtype
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

power = _g["pow"]


def abs(x) -> PrimExpr:  # noqa: A001 - TVM's name
    x = as_expr(x)
    if x.dtype.is_uint or x.dtype.is_bool:
        return x
    if x.dtype.is_float:
        return Call(x.dtype, Op.get("tir.fabs"), (x,))
    return Select(x >= 0, x, -x)


def round(x, span=None, dtype=None) -> PrimExpr:  # noqa: A001 - TVM's name; dtype as TVMScript prints it
    x = _float_arg(x)
    return Call(x.dtype, Op.get("tir.round"), (x,))


def if_then_else(cond, t, f, span=None, dtype=None) -> PrimExpr:
    """``t if cond else f``, evaluating only the taken side (unlike ``Select``); ``dtype``
    (as TVMScript prints it) casts both sides first."""
    cond = as_expr(cond)
    if dtype is not None:
        t, f = cast(as_expr(t), dtype), cast(as_expr(f), dtype)
    t, f = promote(t, f)
    return Call(t.dtype, Op.get("tir.if_then_else"), (cond, t, f))


def likely(cond, span=None, dtype=None) -> PrimExpr:  # dtype: as TVMScript prints it
    cond = as_expr(cond)
    return Call(cond.dtype, Op.get("tir.likely"), (cond,))


def reinterpret(dtype, value) -> PrimExpr:
    return Call(DataType(dtype), Op.get("tir.reinterpret"), (as_expr(value),))


def ret(value) -> PrimExpr:
    value = as_expr(value)
    return Call(value.dtype, Op.get("tir.ret"), (value,))


def cast(value, dtype) -> PrimExpr:
    dtype = DataType(dtype)
    value = as_expr(value)
    if value.dtype is dtype:
        return value
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


def all(*conds) -> PrimExpr:  # noqa: A001
    """Logical AND of the conditions (True for none)."""
    if len(conds) == 1 and isinstance(conds[0], list | tuple):
        conds = conds[0]
    out = const(True)
    for c in conds:
        out = binary(And, out, as_expr(c)) if not (isinstance(out, IntImm) and out.value) else as_expr(c)
    return out


def any(*conds) -> PrimExpr:  # noqa: A001
    """Logical OR of the conditions (False for none)."""
    if len(conds) == 1 and isinstance(conds[0], list | tuple):
        conds = conds[0]
    out = const(False)
    for c in conds:
        out = binary(Or, out, as_expr(c)) if not (isinstance(out, IntImm) and not out.value) else as_expr(c)
    return out


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

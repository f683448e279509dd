"""A reference evaluator of scalar PrimExprs: the oracle the simplifier is tested against.

``evaluate(expr, env)`` computes the Python value of ``expr`` with the variables in
``env`` (Var → int/float/bool).  Integer semantics are TIR's: ``FloorDiv``/``FloorMod``
round towards −∞, ``Div``/``Mod`` on integers truncate towards zero (C), and results
wrap to the expression's bit width like machine integers.  It is slow and obvious on
purpose; use it in tests, not in passes.
"""

from __future__ import annotations

import struct

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, Call, Cast, Div, FloatImm, FloorDiv, FloorMod,
    IntImm, Let, Max, Min, Mod, Mul, Not, Or, PrimExpr, Select, Sub, Var,
)
from ember.ir.expr import wrap_int  # what constant folding wraps to: one definition for both
from ember.runtime.dtype import DataType

__all__ = ["evaluate", "wrap_int", "trunc_div", "trunc_mod", "ARITH", "INT_DIVISION", "COMPARE"]


def trunc_div(a: int, b: int) -> int:
    """Integer division rounding towards zero (C's ``/``)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def trunc_mod(a: int, b: int) -> int:
    """The remainder of ``trunc_div``; it has the sign of ``a`` (C's ``%``)."""
    return a - b * trunc_div(a, b)


def _round_float(value: float, dtype: DataType) -> float:
    if dtype.bits == 32:
        return struct.unpack("f", struct.pack("f", value))[0] if abs(value) < 3.5e38 else value
    return value


def _finish(value, dtype: DataType):
    if dtype.is_bool:
        return bool(value)
    if dtype.is_integer:
        return wrap_int(int(value), dtype)
    return _round_float(float(value), dtype)


def _int_div(fn):
    def apply(a, b):
        if b == 0:
            raise ZeroDivisionError("evaluate: division by zero")
        return fn(a, b)

    return apply


# Operator tables shared with constant folding (``fold.py``), which differs only in
# what a division by zero does (it declines to fold) and in float division.
ARITH = {  # the same for ints and floats
    Add: lambda a, b: a + b,
    Sub: lambda a, b: a - b,
    Mul: lambda a, b: a * b,
    Min: min,
    Max: max,
}
INT_DIVISION = {  # integer division, unguarded: callers decide what b == 0 means
    FloorDiv: lambda a, b: a // b,
    FloorMod: lambda a, b: a % b,
    Div: trunc_div,
    Mod: trunc_mod,
}
_INT_ARITH = {**ARITH, **{cls: _int_div(fn) for cls, fn in INT_DIVISION.items()}}
_FLOAT_ARITH = {
    **ARITH,
    Div: lambda a, b: a / b,
    FloorDiv: lambda a, b: float(a // b),
    FloorMod: lambda a, b: a % b,
}
COMPARE = {
    LT: lambda a, b: a < b,
    LE: lambda a, b: a <= b,
    GT: lambda a, b: a > b,
    GE: lambda a, b: a >= b,
    EQ: lambda a, b: a == b,
    NE: lambda a, b: a != b,
    And: lambda a, b: bool(a) and bool(b),
    Or: lambda a, b: bool(a) or bool(b),
}


def evaluate(expr: PrimExpr, env: dict | None = None):
    """The value of the scalar ``expr`` with variables taken from ``env`` (Var → value)."""
    return _eval(expr, dict(env or {}))


def _eval(e: PrimExpr, env: dict):
    cls = type(e)
    if cls is IntImm:
        return bool(e.value) if e.dtype.is_bool else int(e.value)
    if cls is FloatImm:
        return float(e.value)
    if isinstance(e, Var):
        if e in env:
            return env[e]
        if e.name in env:
            return env[e.name]
        raise KeyError(f"evaluate: env has no value for the variable {e.name!r}")
    fn = COMPARE.get(cls)
    if fn is not None:
        return fn(_eval(e.a, env), _eval(e.b, env))
    table = _FLOAT_ARITH if e.dtype.is_float else _INT_ARITH
    fn = table.get(cls)
    if fn is not None:
        return _finish(fn(_eval(e.a, env), _eval(e.b, env)), e.dtype)
    if cls is Not:
        return not _eval(e.a, env)
    if cls is Select:
        cond = _eval(e.condition, env)
        t, f = _eval(e.true_value, env), _eval(e.false_value, env)
        return t if cond else f
    if cls is Cast:
        value = _eval(e.value, env)
        if e.dtype.is_integer and isinstance(value, float):
            value = int(value)  # C truncation
        return _finish(value, e.dtype)
    if cls is Let:
        inner = dict(env)
        inner[e.var] = _eval(e.value, env)
        return _eval(e.body, inner)
    if cls is Broadcast:
        return _eval(e.value, env)
    if cls is Call and getattr(e.op, "name", None) == "tir.if_then_else":
        cond, t, f = e.args
        return _eval(t, env) if _eval(cond, env) else _eval(f, env)
    raise TypeError(f"evaluate: cannot evaluate a {cls.__name__} node (only scalar arithmetic)")

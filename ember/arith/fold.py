"""Constant folding for every scalar operator and dtype (a rule of the simplifier).

Integers wrap to their bit width like machine integers; ``float32``/``float16`` results
are rounded to their precision; division by a zero constant is left alone (it is the
program's error to report, not ours to hide).
"""

from __future__ import annotations

import math

import numpy as np

from ember.ir import Broadcast, Call, Cast, Div, FloatImm, FloorDiv, FloorMod, IntImm, PrimExpr, Select
from ember.runtime.dtype import DataType

from .evaluate import ARITH, COMPARE, INT_DIVISION, wrap_int

__all__ = ["fold_binary", "fold_not", "fold_cast", "fold_select", "make_const"]

_BOOL = DataType("bool")


def make_const(value, dtype: DataType) -> PrimExpr:
    """A constant of ``dtype`` holding ``value`` (wrapped or rounded to fit)."""
    if dtype.is_bool:
        return IntImm(dtype, int(bool(value)))
    if dtype.is_integer:
        return IntImm(dtype, wrap_int(int(value), dtype))
    if dtype.bits == 16:
        value = float(np.float16(value))
    elif dtype.bits == 32:
        value = float(np.float32(value))
    return FloatImm(dtype, float(value))


def _nonzero(fn):
    return lambda a, b: None if b == 0 else fn(a, b)


def _float_floordiv(a, b):
    return None if b == 0 else float(math.floor(a / b))


def _float_floormod(a, b):
    return None if b == 0 else a - math.floor(a / b) * b


# The evaluator's operator tables; a division by zero is not folded (None).
_INT = {**ARITH, **{cls: _nonzero(fn) for cls, fn in INT_DIVISION.items()}}
_FLOAT = {
    **ARITH,
    Div: lambda a, b: None if b == 0 else a / b,
    FloorDiv: _float_floordiv,
    FloorMod: _float_floormod,
}


def _is_const(e) -> bool:
    return type(e) is IntImm or type(e) is FloatImm


def fold_binary(s, e) -> PrimExpr | None:
    """``c1 op c2`` → its value."""
    a, b = e.a, e.b
    if not (_is_const(a) and _is_const(b)):
        return None
    cls = type(e)
    fn = COMPARE.get(cls)
    if fn is not None:
        return IntImm(_BOOL, int(fn(a.value, b.value)))
    table = _FLOAT if e.dtype.is_float else _INT
    fn = table.get(cls)
    if fn is None:
        return None
    value = fn(a.value, b.value)
    return None if value is None else make_const(value, e.dtype)


def fold_not(s, e) -> PrimExpr | None:
    if type(e.a) is IntImm:
        return IntImm(e.dtype, int(not e.a.value))
    return None


def fold_cast(s, e: Cast) -> PrimExpr | None:
    """Cast of a constant; cast to the value's own dtype."""
    v = e.value
    if v.dtype is e.dtype:
        return v
    if not _is_const(v) or e.dtype.lanes != 1:
        return None
    value = v.value
    if e.dtype.is_integer and isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        value = int(value)  # C truncation towards zero
    return make_const(value, e.dtype)


def _constant_condition(c: PrimExpr) -> IntImm | None:
    """A condition known at compile time: a constant, or a constant broadcast to every lane
    (a vectorised loop's condition that unrolling made constant)."""
    if type(c) is Broadcast:
        c = c.value
    return c if type(c) is IntImm else None


def fold_select(s, e: Select) -> PrimExpr | None:
    """Select with a constant condition, or with equal branches."""
    c = _constant_condition(e.condition)
    if c is not None:
        return e.true_value if c.value else e.false_value
    if s.same(e.true_value, e.false_value):
        return e.true_value
    return None


def fold_if_then_else(s, e: Call) -> PrimExpr | None:
    if getattr(e.op, "name", None) != "tir.if_then_else":
        return None
    c, t, f = e.args
    c = _constant_condition(c)
    if c is not None:
        return t if c.value else f
    if s.same(t, f):
        return t
    return None


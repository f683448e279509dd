"""Constant integer bounds: the smallest [min, max] interval provably holding an expression.

``ConstIntBound(min_value, max_value)`` is the public result; infinite ends are the
sentinels ``ConstIntBound.POS_INF`` / ``NEG_INF`` (±(2**63 − 1), as in TVM).  Inside,
bounds are ``(lo, hi)`` pairs of Python ints with ``math.inf`` for infinite ends, so
interval arithmetic never overflows.  ``bound_of(analyzer, expr)`` computes them with
one rule per node type (the ``_RULES`` table), memoised in the analyzer; variables take
the bounds the analyzer was told (``bind``, ``update``, constraint scopes) or their
dtype's range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, Call, Cast, Div, FloatImm, FloorDiv, FloorMod,
    IntImm, Let, Max, Min, Mod, Mul, Not, Or, PrimExpr, Ramp, Select, SizeVar, Sub, Var,
)
from ember.ir.expr import BinaryOp
from ember.runtime.dtype import DataType

__all__ = ["ConstIntBound", "bound_of", "dtype_range", "to_public", "from_public", "INF"]

INF = math.inf
_POS_INF = (1 << 63) - 1


@dataclass(frozen=True)
class ConstIntBound:
    """``min_value <= expr <= max_value``; infinite ends use ``POS_INF`` / ``NEG_INF``."""

    min_value: int
    max_value: int

    POS_INF: ClassVar[int] = _POS_INF
    NEG_INF: ClassVar[int] = -_POS_INF

    def is_const(self) -> bool:
        return self.min_value == self.max_value


def to_public(bound: tuple) -> ConstIntBound:
    lo, hi = bound
    lo = -_POS_INF if lo == -INF or lo <= -_POS_INF else int(lo)
    hi = _POS_INF if hi == INF or hi >= _POS_INF else int(hi)
    return ConstIntBound(lo, hi)


def from_public(bound: ConstIntBound) -> tuple:
    lo = -INF if bound.min_value <= -_POS_INF else bound.min_value
    hi = INF if bound.max_value >= _POS_INF else bound.max_value
    return (lo, hi)


_EVERYTHING = (-INF, INF)
_BOOL = (0, 1)
_RANGE_CACHE: dict = {}


def dtype_range(dtype: DataType) -> tuple:
    """The values ``dtype`` can hold; 64-bit ends count as infinite."""
    found = _RANGE_CACHE.get(dtype)
    if found is None:
        if dtype.is_bool:
            found = _BOOL
        elif dtype.is_int and dtype.bits < 64:
            found = (-(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1)
        elif dtype.is_uint and dtype.bits < 64:
            found = (0, (1 << dtype.bits) - 1)
        elif dtype.is_uint:
            found = (0, INF)
        else:
            found = _EVERYTHING
        _RANGE_CACHE[dtype] = found
    return found


def bound_of(ana, e: PrimExpr) -> tuple:
    """The (lo, hi) bound of ``e`` under what ``ana`` knows (memoised)."""
    cache = ana._bound_cache
    hit = cache.get(id(e))
    if hit is not None:
        return hit[1]
    if isinstance(e, BinaryOp):
        from .simplifier import _walk_spine

        _walk_spine(e, cache, lambda n: bound_of(ana, n))
    rule = _RULES.get(type(e))
    if rule is None:
        rule = _rule_for_subclass(type(e))
    r = rule(ana, e)
    dr = dtype_range(e.dtype)
    if r[0] < dr[0] or r[1] > dr[1]:
        # finite ends are clamped to the dtype; an infinite end (from a variable told it is
        # unbounded) stays infinite, as TVM reports it
        r = (r[0] if r[0] == -INF else max(r[0], dr[0]), r[1] if r[1] == INF else min(r[1], dr[1]))
    cache[id(e)] = (e, r)
    return r


def _rule_for_subclass(cls):
    for base in cls.__mro__[1:]:
        if base in _RULES:
            _RULES[cls] = _RULES[base]
            return _RULES[base]
    return _opaque


# -- interval arithmetic on (lo, hi) with infinities ----------------------------------

def _mul(a, b):
    if a == 0 or b == 0:
        return 0
    return a * b


def _fdiv(a, b):
    """floor(a / b) on ints and ±inf (b != 0)."""
    if a in (INF, -INF):
        return a if b > 0 else -a
    if b in (INF, -INF):
        if a == 0:
            return 0
        return 0 if (a > 0) == (b > 0) else -1
    return a // b


def _tdiv(a, b):
    """trunc(a / b) on ints and ±inf (b != 0)."""
    if a in (INF, -INF):
        return a if b > 0 else -a
    if b in (INF, -INF):
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _corners(fn, a: tuple, b: tuple) -> tuple:
    vals = (fn(a[0], b[0]), fn(a[0], b[1]), fn(a[1], b[0]), fn(a[1], b[1]))
    return (min(vals), max(vals))


def union(a: tuple, b: tuple) -> tuple:
    return (min(a[0], b[0]), max(a[1], b[1]))


def _divide(div, a: tuple, b: tuple) -> tuple:
    """Bound of a / b with the rounding ``div``; division by zero is assumed not to happen."""
    if a[0] > a[1] or b[0] > b[1]:
        return _EVERYTHING
    if b[0] > 0 or b[1] < 0:
        return _corners(div, a, b)
    parts = []
    if b[1] > 0:
        parts.append(_corners(div, a, (1, b[1])))
    if b[0] < 0:
        parts.append(_corners(div, a, (b[0], -1)))
    if not parts:
        return _EVERYTHING
    return parts[0] if len(parts) == 1 else union(parts[0], parts[1])


# -- rules -------------------------------------------------------------------------

def _opaque(ana, e):
    return dtype_range(e.dtype)


def _int_imm(ana, e):
    return (e.value, e.value)


def _var(ana, e):
    ana._seen.add(id(e))
    known = ana._var_bounds.get(e)
    if known is not None:
        return known
    r = dtype_range(e.dtype)
    return (0, INF) if isinstance(e, SizeVar) else r  # a size: non-negative, unbounded (TVM)


def _add(ana, e):
    a, b = bound_of(ana, e.a), bound_of(ana, e.b)
    return (a[0] + b[0], a[1] + b[1])


def _sub(ana, e):
    a, b = bound_of(ana, e.a), bound_of(ana, e.b)
    return (a[0] - b[1], a[1] - b[0])


def _mul_rule(ana, e):
    return _corners(_mul, bound_of(ana, e.a), bound_of(ana, e.b))


def _floordiv(ana, e):
    return _divide(_fdiv, bound_of(ana, e.a), bound_of(ana, e.b))


def _truncdiv(ana, e):
    return _divide(_tdiv, bound_of(ana, e.a), bound_of(ana, e.b))


def _floormod(ana, e):
    a, b = bound_of(ana, e.a), bound_of(ana, e.b)
    # the divisor is assumed non-zero (as TVM does): a zero end of its range is dropped
    if b[0] == 0 and b[1] >= 1:
        b = (1, b[1])
    elif b[1] == 0 and b[0] <= -1:
        b = (b[0], -1)
    if b[0] > 0:
        if a[0] >= 0 and a[1] < b[0]:
            return a
        return (0, min(a[1], b[1] - 1) if a[0] >= 0 else b[1] - 1)
    if b[1] < 0:
        return (b[0] + 1, 0)
    if b[0] < 0 < b[1]:  # the result takes the divisor's sign
        return (b[0] + 1, min(a[1], b[1] - 1) if a[0] >= 0 else b[1] - 1)
    return _opaque(ana, e)  # only x % 0: undefined


def _truncmod(ana, e):
    a, b = bound_of(ana, e.a), bound_of(ana, e.b)
    m = max(abs(b[0]), abs(b[1])) - 1
    if m < 0:  # only x % 0: undefined
        return _opaque(ana, e)
    if a[0] >= 0:
        return (0, min(a[1], m))
    if a[1] <= 0:
        return (max(a[0], -m), 0)
    return (max(a[0], -m), min(a[1], m))


def _min(ana, e):
    a, b = bound_of(ana, e.a), bound_of(ana, e.b)
    return (min(a[0], b[0]), min(a[1], b[1]))


def _max(ana, e):
    a, b = bound_of(ana, e.a), bound_of(ana, e.b)
    return (max(a[0], b[0]), max(a[1], b[1]))


def _select(ana, e):
    return union(bound_of(ana, e.true_value), bound_of(ana, e.false_value))


_MANTISSA = {16: 11, 32: 24, 64: 53}


def _cast(ana, e):
    src = e.value.dtype
    value = e.value
    if src.is_float and e.dtype.is_integer and type(value) is Cast and value.value.dtype.is_integer:
        # int -> float -> int: exact while the float holds every value of the range
        exact = 1 << _MANTISSA.get(src.bits, 0)
        v = bound_of(ana, value.value)
        if -exact <= v[0] and v[1] <= exact:
            src, value = value.value.dtype, value.value
    if src.is_integer or src.is_bool:
        v = bound_of(ana, value)
        r = dtype_range(e.dtype)
        if v[0] >= r[0] and v[1] <= r[1]:
            return v
    return dtype_range(e.dtype)


def _let(ana, e):
    value = bound_of(ana, e.value)
    old = ana._var_bounds.get(e.var)
    ana._var_bounds[e.var] = value
    try:
        return bound_of(ana, e.body)
    finally:
        if old is None:
            ana._var_bounds.pop(e.var, None)
        else:
            ana._var_bounds[e.var] = old


def _ramp(ana, e):
    base, stride = bound_of(ana, e.base), bound_of(ana, e.stride)
    last = _corners(_mul, stride, (e.lanes - 1, e.lanes - 1))
    return (base[0] + min(0, last[0]), base[1] + max(0, last[1]))


def _broadcast(ana, e):
    return bound_of(ana, e.value)


def _call(ana, e):
    name = getattr(e.op, "name", "")
    if name == "tir.if_then_else":
        return union(bound_of(ana, e.args[1]), bound_of(ana, e.args[2]))
    if name == "tir.bitwise_and" and e.dtype.is_integer:
        a, b = bound_of(ana, e.args[0]), bound_of(ana, e.args[1])
        if a[0] >= 0 and b[0] >= 0:
            return (0, min(a[1], b[1]))
        if a[0] >= 0:
            return (0, a[1])
        if b[0] >= 0:
            return (0, b[1])
    if name == "tir.shift_right" and e.dtype.is_integer:
        a, b = bound_of(ana, e.args[0]), bound_of(ana, e.args[1])
        if b[0] >= 0 and b[1] < 64:  # a >> s is monotone in a and, by sign of a, in s
            def shr(x, sh):
                return x if x in (INF, -INF) else x >> int(sh)
            return _corners(shr, a, b)
    return dtype_range(e.dtype)


def _bool(ana, e):
    return _BOOL


_RULES = {
    IntImm: _int_imm,
    FloatImm: _opaque,
    Var: _var,
    Add: _add,
    Sub: _sub,
    Mul: _mul_rule,
    FloorDiv: _floordiv,
    Div: _truncdiv,
    FloorMod: _floormod,
    Mod: _truncmod,
    Min: _min,
    Max: _max,
    Select: _select,
    Cast: _cast,
    Let: _let,
    Ramp: _ramp,
    Broadcast: _broadcast,
    Call: _call,
    **{cls: _bool for cls in (EQ, NE, LT, LE, GT, GE, And, Or, Not)},
}

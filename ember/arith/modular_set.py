"""Modular sets: every value of an expression is ``coeff * k + base`` for some integer k.

``ModularSet(coeff, base)`` with ``coeff == 0`` means the constant ``base``;
``ModularSet(1, 0)`` means "any integer".  ``base`` is kept in ``[0, coeff)``.
``modular_of(analyzer, expr)`` derives them bottom-up (one rule per node type),
memoised in the analyzer.  The simplifier uses them to see that ``(x*8 + 4) % 4`` is 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ember.ir import (
    Add, Call, Cast, Div, FloorDiv, FloorMod, IntImm, Let, Max, Min, Mod, Mul, PrimExpr, Select, Sub,
    Var,
)

__all__ = ["ModularSet", "modular_of", "make_modular", "union_modular", "intersect_modular"]


@dataclass(frozen=True)
class ModularSet:
    """The set ``{coeff * k + base}``; ``coeff == 0`` is the single value ``base``."""

    coeff: int
    base: int


def make_modular(coeff: int, base: int) -> ModularSet:
    coeff = abs(coeff)
    if coeff:
        base %= coeff
    return ModularSet(coeff, base)


_EVERYTHING = ModularSet(1, 0)


def modular_of(ana, e: PrimExpr) -> ModularSet:
    """The modular set of the integer expression ``e`` under what ``ana`` knows."""
    if not (e.dtype.is_integer and e.dtype.lanes == 1):
        return _EVERYTHING
    cache = ana._modular_cache
    hit = cache.get(id(e))
    if hit is not None:
        return hit[1]
    rule = _RULES.get(type(e))
    if rule is None and isinstance(e, Var):
        rule = _var
    r = rule(ana, e) if rule is not None else _EVERYTHING
    cache[id(e)] = (e, r)
    return r


def union_modular(a: ModularSet, b: ModularSet) -> ModularSet:
    g = math.gcd(a.coeff, b.coeff, abs(a.base - b.base))
    return make_modular(g, a.base)


def intersect_modular(a: ModularSet, b: ModularSet) -> ModularSet | None:
    """The values in both sets (Chinese remaindering), or None when there are none."""
    if a.coeff == 0 or b.coeff == 0:
        single, other = (a, b) if a.coeff == 0 else (b, a)
        if other.coeff == 0:
            return single if single.base == other.base else None
        return single if (single.base - other.base) % other.coeff == 0 else None
    g = math.gcd(a.coeff, b.coeff)
    if (b.base - a.base) % g:
        return None
    step = b.coeff // g
    k = ((b.base - a.base) // g * pow(a.coeff // g, -1, step)) % step if step > 1 else 0
    return make_modular(a.coeff * step, a.base + a.coeff * k)


def _int_imm(ana, e):
    return ModularSet(0, e.value)


def _var(ana, e):
    ana._seen.add(id(e))
    known = ana._var_modular.get(e)
    if known is not None:
        return known
    value = ana._var_values.get(e)
    if value is not None:  # bound to an expression: its modular set
        return modular_of(ana, value)
    lo, hi = ana._var_bounds.get(e, (None, None))
    if lo is not None and lo == hi:
        return ModularSet(0, lo)
    return _EVERYTHING


def _add(ana, e):
    a, b = modular_of(ana, e.a), modular_of(ana, e.b)
    return make_modular(math.gcd(a.coeff, b.coeff), a.base + b.base)


def _sub(ana, e):
    a, b = modular_of(ana, e.a), modular_of(ana, e.b)
    return make_modular(math.gcd(a.coeff, b.coeff), a.base - b.base)


def _mul(ana, e):
    a, b = modular_of(ana, e.a), modular_of(ana, e.b)
    # (ca*k + ba)(cb*j + bb) = ca*cb*kj + ca*bb*k + cb*ba*j + ba*bb
    g = math.gcd(a.coeff * b.coeff, a.coeff * b.base, b.coeff * a.base)
    return make_modular(g, a.base * b.base)


def _const_divisor(ana, e):
    d = modular_of(ana, e.b)
    return d.base if d.coeff == 0 and d.base > 0 else None


def _floordiv(ana, e):
    c = _const_divisor(ana, e)
    a = modular_of(ana, e.a)
    if c is not None and a.coeff % c == 0:
        return make_modular(a.coeff // c, a.base // c)
    return _EVERYTHING


def _floormod(ana, e):
    c = _const_divisor(ana, e)
    a = modular_of(ana, e.a)
    if c is not None:
        if a.coeff % c == 0:
            return ModularSet(0, a.base % c)
        return make_modular(math.gcd(a.coeff, c), a.base)
    return _EVERYTHING


def _exact_division(ana, e) -> bool:
    """The divisor is a constant dividing every value of the dividend (no rounding at all)."""
    c = _const_divisor(ana, e)
    a = modular_of(ana, e.a)
    return c is not None and a.coeff % c == 0 and a.base % c == 0


def _truncdiv(ana, e):
    from .const_int_bound import bound_of

    if bound_of(ana, e.a)[0] >= 0 or _exact_division(ana, e):  # then it rounds like floordiv
        return _floordiv(ana, e)
    return _EVERYTHING


def _truncmod(ana, e):
    from .const_int_bound import bound_of

    if bound_of(ana, e.a)[0] >= 0 or _exact_division(ana, e):
        return _floormod(ana, e)
    return _EVERYTHING


_MANTISSA_BITS = {16: 11, 32: 24, 64: 53}


def _cast(ana, e):
    """An integer cast to an integer type keeps its residues (overflow ignored, as bounds do);
    so does an integer that went through a float type wide enough to hold it exactly."""
    value = e.value
    if not e.dtype.is_integer:
        return _EVERYTHING
    if value.dtype.is_float and isinstance(value, Cast) and value.value.dtype.is_integer \
            and value.value.dtype.bits <= _MANTISSA_BITS.get(value.dtype.bits, 0):
        value = value.value
    if value.dtype.is_integer:
        return modular_of(ana, value)
    return _EVERYTHING


def _call(ana, e):
    """Shifts by a constant: ``x >> k`` is ``floordiv(x, 2**k)``, ``x << k`` is ``x * 2**k``."""
    name = getattr(e.op, "name", "")
    if name == "tir.bitwise_and" and isinstance(e.args[1], IntImm) and e.args[1].value > 0 \
            and (e.args[1].value + 1) & e.args[1].value == 0:  # x & (2**p - 1) is x mod 2**p
        a, c = modular_of(ana, e.args[0]), e.args[1].value + 1
        return ModularSet(0, a.base % c) if a.coeff % c == 0 else make_modular(math.gcd(a.coeff, c), a.base)
    if name in ("tir.shift_right", "tir.shift_left") and isinstance(e.args[1], IntImm) and e.args[1].value >= 0:
        a, k = modular_of(ana, e.args[0]), 1 << e.args[1].value
        if name == "tir.shift_left":
            return make_modular(a.coeff * k, a.base * k)
        if a.coeff % k == 0:
            return make_modular(a.coeff // k, a.base // k)
    return _EVERYTHING


def _union(ana, e):
    return union_modular(modular_of(ana, e.a), modular_of(ana, e.b))


def _select(ana, e):
    return union_modular(modular_of(ana, e.true_value), modular_of(ana, e.false_value))


def _let(ana, e):
    """The body's set, knowing the bound variable's residues (a Let's variable is its own)."""
    var = e.var
    old = ana._var_modular.get(var)
    ana._var_modular[var] = modular_of(ana, e.value)
    ana._changed(var)
    try:
        return modular_of(ana, e.body)
    finally:
        if old is None:
            ana._var_modular.pop(var, None)
        else:
            ana._var_modular[var] = old
        ana._changed(var)  # drop results memoised while the variable meant the Let's value


_RULES = {
    IntImm: _int_imm,
    Var: _var,
    Add: _add,
    Sub: _sub,
    Mul: _mul,
    FloorDiv: _floordiv,
    FloorMod: _floormod,
    Div: _truncdiv,
    Mod: _truncmod,
    Min: _union,
    Max: _union,
    Select: _select,
    Let: _let,
    Cast: _cast,
    Call: _call,
}

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
    Add, Div, FloorDiv, FloorMod, IntImm, Let, Max, Min, Mod, Mul, PrimExpr, Select, Sub, Var,
)

__all__ = ["ModularSet", "modular_of", "make_modular", "union_modular"]


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


def _int_imm(ana, e):
    return ModularSet(0, e.value)


def _var(ana, e):
    ana._seen.add(id(e))
    known = ana._var_modular.get(e)
    if known is not None:
        return known
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


def _truncdiv(ana, e):
    from .const_int_bound import bound_of

    if bound_of(ana, e.a)[0] >= 0:
        return _floordiv(ana, e)
    return _EVERYTHING


def _truncmod(ana, e):
    from .const_int_bound import bound_of

    if bound_of(ana, e.a)[0] >= 0:
        return _floormod(ana, e)
    return _EVERYTHING


def _union(ana, e):
    return union_modular(modular_of(ana, e.a), modular_of(ana, e.b))


def _select(ana, e):
    return union_modular(modular_of(ana, e.true_value), modular_of(ana, e.false_value))


def _let(ana, e):
    return modular_of(ana, e.body)


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
}

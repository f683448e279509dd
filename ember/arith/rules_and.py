"""Simplifier rules for ``and`` of two comparisons that bound one value and its div/mod.

Each side is read as an interval of one atom (``x % 10 < 7`` is ``x % 10 in [.., 6]``):

- ``x // c == q and x % c in [a, b]`` is an interval of ``x`` itself:
  ``x // 8 == 3 and x % 8 == 4`` → ``x == 28``, ``x // 10 == 5 and x % 10 < 7`` →
  ``50 <= x and x < 57`` (the strictness of each written bound is kept).
- ``x <= U and x % m in [a, b]``: the bound moves to the last value that satisfies both,
  ``x < 20 and x % 5 < 2`` → ``x < 17 and x % 5 < 2`` (and likewise for a lower bound).
- ``c*y <= e and e < c*y + c`` is ``y == e // c`` (floor division).
"""

from __future__ import annotations

import math

from ember.ir import EQ, LE, LT, And, FloorDiv, FloorMod, IntImm, PrimExpr

from ember.runtime.dtype import DataType

from .linear import Linear, is_int_scalar, to_expr
from .rules_logic import le0_forms

__all__ = ["and_div_mod"]

_INF = math.inf
_BOOL = DataType("bool")


def _interval(s, cmp: PrimExpr):
    """``(atom, lo, hi)`` when the comparison bounds a single atom, else None."""
    forms = le0_forms(s, cmp)
    if not forms:
        return None
    atom, lo, hi = None, -_INF, _INF
    for f in forms:
        if len(f.terms) != 1:
            return None
        (a, c), = f.terms.values()
        if c not in (1, -1) or (atom is not None and not s.same(a, atom)):
            return None
        atom = a
        if c == 1:
            hi = min(hi, -f.const)  # a + k <= 0
        else:
            lo = max(lo, f.const)  # -a + k <= 0
    return atom, lo, hi


def _is_mod_of(s, atom, x) -> int | None:
    """``m`` when ``atom`` is ``x % m`` (floor, constant m > 0)."""
    if type(atom) is FloorMod and type(atom.b) is IntImm and atom.b.value > 0 and s.same(atom.a, x):
        return atom.b.value
    return None


def and_div_mod(s, e) -> PrimExpr | None:
    ia, ib = _interval(s, e.a), _interval(s, e.b)
    if ia is not None and ib is not None and is_int_scalar(ia[0].dtype):
        for (first, second, cmp_second, second_is_b) in ((ia, ib, e.b, True), (ib, ia, e.a, False)):
            r = _div_and_mod(s, first, second, cmp_second)
            if r is not None:
                return r
            r = _bound_and_mod(s, first, second, cmp_second, second_is_b)
            if r is not None:
                return r
    return _floor_quotient(s, e)


def _div_and_mod(s, div_side, mod_side, mod_cmp) -> PrimExpr | None:
    atom, q_lo, q_hi = div_side
    if type(atom) is not FloorDiv or type(atom.b) is not IntImm or q_lo != q_hi:
        return None
    c = atom.b.value
    if c <= 0 or _is_mod_of(s, mod_side[0], atom.a) != c:
        return None
    x, base = atom.a, q_lo * c
    lo, hi = max(mod_side[1], 0), min(mod_side[2], c - 1)
    dtype = x.dtype
    if lo > hi:
        return IntImm(_BOOL, 0)
    if lo == hi:
        return EQ(x, IntImm(dtype, base + lo))
    if lo == 0:
        lower = LE(IntImm(dtype, base), x)
    elif type(mod_cmp) is LT:  # k < x % c was written strictly
        lower = LT(IntImm(dtype, base + lo - 1), x)
    else:
        lower = LE(IntImm(dtype, base + lo), x)
    if hi == c - 1 or type(mod_cmp) is LT:
        upper = LT(x, IntImm(dtype, base + hi + 1))
    else:
        upper = LE(x, IntImm(dtype, base + hi))
    return And(lower, upper)


def _bound_and_mod(s, x_side, mod_side, mod_cmp, x_first: bool) -> PrimExpr | None:
    x, lo, hi = x_side
    m = _is_mod_of(s, mod_side[0], x)
    if m is None:
        return None
    a, b = max(mod_side[1], 0), min(mod_side[2], m - 1)
    if a > b or (lo != -_INF and hi != _INF):
        return None
    dtype = x.dtype
    if hi != _INF:
        r = hi % m
        if a <= r <= b:
            return None
        new_hi = hi - r + b if r > b else hi - r - m + b
        cmp = LT(x, IntImm(dtype, new_hi + 1))
    elif lo != -_INF:
        r = lo % m
        if a <= r <= b:
            return None
        new_lo = lo - r + a if r < a else lo - r + m + a
        cmp = LE(IntImm(dtype, new_lo), x)
    else:
        return None
    return And(cmp, mod_cmp) if x_first else And(mod_cmp, cmp)


def _floor_quotient(s, e) -> PrimExpr | None:
    """``c*y <= e and e < c*y + c`` (either order) → ``y == e // c``."""
    fa, fb = le0_forms(s, e.a), le0_forms(s, e.b)
    if not fa or not fb or len(fa) != 1 or len(fb) != 1:
        return None
    f1, f2 = fa[0], fb[0]
    total = f1.plus(f2)
    if total.terms:
        return None
    c = 1 - total.const  # f1 + f2 == 1 - c
    if c < 2:
        return None
    for f in (f1, f2):
        for key, (atom, coeff) in f.terms.items():
            if coeff != c:
                continue
            # f = c*y - e  <= 0  and the other form is e - c*y - (c - 1) <= 0
            rest = Linear({k: (a, -v) for k, (a, v) in f.terms.items() if k != key}, -f.const)
            dtype = atom.dtype
            numer = to_expr(rest, dtype)
            return EQ(atom, FloorDiv(numer, IntImm(dtype, c)))
    return None

"""Simplifier rules for division and modulo by a symbolic divisor ``d``.

The numerator's linear form is split into the terms that are multiples of ``d`` (``d``
itself, ``x*d``, with ``d = k*D`` also ``k*m*(x*D)``) and the rest ``r``:

- floor forms: ``(q*d + r) // d`` → ``q + r // d`` and ``(q*d + r) % d`` → ``r % d``.  Floor
  division is invariant under adding multiples of any non-zero divisor, so no sign
  condition is needed (division by zero is undefined either way).
- truncating forms need the numerator and ``r`` on the same side of zero (both
  non-negative or both non-positive), else the rounding direction changes.

``x // x`` is 1 and ``x % x`` is 0 for both kinds.  The quotient keeps the place its
first term had in the numerator (``(x*z + y) // z`` → ``x + y // z``, ``(y + x*z) // z`` →
``y // z + x``), as TVM's rules write it.
"""

from __future__ import annotations

from ember.ir import Div, FloorDiv, FloorMod, IntImm, Mul, PrimExpr

from .linear import Linear, is_int_scalar

__all__ = ["div_by_symbol"]

_FLOOR = (FloorDiv, FloorMod)
_IS_DIV = (FloorDiv, Div)


def _divisor_unit(s, d: PrimExpr):
    """``(D, k)`` with ``d == k*D`` for one atom D and k > 0, or None."""
    ld = s.linear(d)
    if ld.const or len(ld.terms) != 1:
        return None
    (atom, k), = ld.terms.values()
    return (atom, k) if k > 0 else None


def _quotient_of(s, atom, coeff: int, unit, whole) -> Linear | None:
    """``coeff*atom`` divided by ``d`` (given as ``unit = (D, k)``) when exact, else None."""
    if s.same(atom, whole):
        return Linear({}, coeff)
    if unit is None:
        return None
    base, k = unit
    if coeff % k:
        return None
    if s.same(atom, base):
        return Linear({}, coeff // k)
    if type(atom) is Mul and type(atom.a) is not IntImm and type(atom.b) is not IntImm:
        for mine, other in ((atom.a, atom.b), (atom.b, atom.a)):
            if s.same(mine, base):
                return s.linear(other).scaled(coeff // k)
    return None


def div_by_symbol(s, e) -> PrimExpr | None:
    """Split the multiples of a non-constant divisor out of ``e.a // e.b`` (or ``%``)."""
    d = e.b
    if type(d) is IntImm or not is_int_scalar(e.dtype):
        return None
    cls = type(e)
    want_div = cls in _IS_DIV
    if s.same(e.a, d):
        return IntImm(e.dtype, 1 if want_div else 0)
    unit = _divisor_unit(s, d)
    num = s.linear(e.a)
    quotient, rest = Linear({}, 0), Linear({}, num.const)
    quotient_first = None
    for key, (atom, coeff) in num.terms.items():
        q = _quotient_of(s, atom, coeff, unit, d)
        if q is None:
            rest = rest.plus(Linear({key: (atom, coeff)}))
            if quotient_first is None:
                quotient_first = False
        else:
            quotient = quotient.plus(q)
            if quotient_first is None:
                quotient_first = True
    if quotient.is_const() and quotient.const == 0 and len(rest.terms) == len(num.terms):
        return None
    if cls not in _FLOOR and not _same_side(s, num, rest):
        return None
    from .rules_arith import _emit

    dtype = e.dtype
    r = _emit(s, rest, dtype)
    if not want_div:
        return cls(r, d) if rest.terms or rest.const else IntImm(dtype, 0)
    if not rest.terms and not rest.const:
        return _emit(s, quotient, dtype)
    q_terms = Linear(quotient.terms, 0)
    div = Linear.atom(s.keys.key(cls(r, d)), cls(r, d))
    parts = q_terms.plus(div) if quotient_first else div.plus(q_terms)
    return _emit(s, parts.plus(Linear({}, quotient.const)), dtype)


def _same_side(s, num: Linear, rest: Linear) -> bool:
    """Numerator and remainder both >= 0 or both <= 0 (truncating division agrees then)."""
    n_lo, n_hi = s.lin_bound(num)
    r_lo, r_hi = s.lin_bound(rest)
    return (n_lo >= 0 and r_lo >= 0) or (n_hi <= 0 and r_hi <= 0)

"""How ``Analyzer.rewrite_simplify`` writes its result: TVM's rewrite-simplifier spelling.

The simplifier builds integer sums in one canonical form (``x - 10``, ``y * -1``), which
``simplify`` and ``canonical_simplify`` return as is, like TVM's canonical simplifier.
TVM's rewrite simplifier spells the same values differently, and code written against
``rewrite_simplify`` sees that spelling: a subtracted constant is added negated
(``x + -10``) and a negated term is subtracted from zero (``0 - y``).  This pass only
re-spells; the value never changes.

It also factors the way TVM's rules do (distributivity holds in wrapping arithmetic too):
terms sharing one constant factor, ``y*5 - z*5`` → ``(y - z)*5`` (``-a*2 - b*2`` →
``(0 - a - b)*2``), and two terms sharing a non-constant factor, ``x*y + x*10`` →
``x*(y + 10)``.
"""

from __future__ import annotations

from ember.ir import Add, IntImm, Mul, PrimExpr, Sub

from .expr_children import map_children, rewrite_each_once

__all__ = ["to_rewrite_form"]


def to_rewrite_form(e: PrimExpr) -> PrimExpr:
    """``e`` with ``a - c`` as ``a + -c`` and ``a * -1`` as ``0 - a`` (integers)."""
    return rewrite_each_once(e, lambda node, visit: _respell(map_children(node, visit)))


def _respell(e):
    cls = type(e)
    if (cls is Add or cls is Sub) and e.dtype.is_integer and e.dtype.is_scalar:
        factored = _factor_constant(e)
        if factored is None:
            factored = _factor_common(e)
        if factored is not None:
            return factored
    if cls is Add and type(e.b) is IntImm and type(e.a) is Sub and _is_zero(e.a.a) and e.dtype.is_scalar:
        return Sub(e.b, e.a.b)  # (0 - a) + c is c - a
    if cls is Sub and type(e.b) is IntImm and e.dtype.is_integer and e.dtype.is_scalar and e.b.value > 0:
        return _respell(Add(e.a, IntImm(e.b.dtype, -e.b.value)))
    if cls is Mul and type(e.b) is IntImm and e.b.value == -1 and e.dtype.is_integer and e.dtype.is_scalar:
        return Sub(IntImm(e.dtype, 0), e.a)
    return e


def _is_zero(e) -> bool:
    return type(e) is IntImm and e.value == 0


def _signed_terms(e) -> list:
    """The terms of an integer sum along its left spine, as (sign, term) pairs."""
    out = []
    while type(e) in (Add, Sub):
        out.append((1 if type(e) is Add else -1, e.b))
        e = e.a
    out.append((1, e))
    return out[::-1]


def _factor_constant(e) -> PrimExpr | None:
    """``a*c ± b*c ± …`` (no constant term) → ``(a ± b ± …)*c`` for one factor c > 1; a
    first term ``a*-c`` starts the sum as ``0 - a``."""
    terms = _signed_terms(e)
    if len(terms) < 2:
        return None
    g = None
    parts = []
    for sign, t in terms:
        if type(t) is not Mul or type(t.b) is not IntImm:
            return None
        c = t.b.value * sign
        if g is None:
            g = abs(c)
        if abs(c) != g or g < 2:
            return None
        parts.append((1 if c > 0 else -1, t.a))
    dtype = e.dtype
    sign0, first = parts[0]
    out = first if sign0 > 0 else Sub(IntImm(dtype, 0), first)
    for sign, t in parts[1:]:
        out = Add(out, t) if sign > 0 else Sub(out, t)
    return Mul(out, IntImm(dtype, g))


def _factors(t) -> list:
    """``t`` as (common factor, rest) candidates: ``x*y`` gives (x, y) and (y, x)."""
    if type(t) is Mul:
        return [(t.a, t.b), (t.b, t.a)]
    return [(t, None)]


def _factor_common(e) -> PrimExpr | None:
    """``x*y ± x*z`` → ``x*(y ± z)`` (``x*y - x`` → ``x*(y + -1)``), where at least one of
    the two terms is a product of two non-constants."""
    from ember.ir import structural_equal

    if type(e.a) is not Mul or type(e.a.a) is IntImm or type(e.a.b) is IntImm:
        return None
    for fa, ra in _factors(e.a):
        if type(fa) is IntImm:
            continue
        for fb, rb in _factors(e.b):
            if type(fb) is IntImm or not structural_equal(fa, fb, map_free_vars=False):
                continue
            one = IntImm(e.dtype, 1)
            ra, rb = ra if ra is not None else one, rb if rb is not None else one
            if type(ra) is IntImm and type(rb) is IntImm:
                return None
            inner = Add(ra, rb) if type(e) is Add else Sub(ra, rb)
            return Mul(fa, _respell(inner))
    return None

"""Simplifier rules for integer comparisons and boolean logic.

A comparison of integers is turned into questions "is ``D <= 0``?" about linear forms
``D`` (``a < b`` is ``a - b + 1 <= 0``) and decided from bounds and from the
analyzer's facts (constraint scopes, symbolic loop ranges).  Undecided comparisons are
normalised when that makes them smaller: ``i*4 + 3 < 16`` → ``i < 4``.
``and``/``or`` of two comparisons are decided when one implies the other or its
negation.  ``as_facts`` turns an assumed condition into such linear facts.
"""

from __future__ import annotations

import math

from ember.ir import EQ, GE, GT, LE, LT, NE, And, IntImm, Not, Or, PrimExpr
from ember.runtime.dtype import DataType

from .linear import Linear, is_int_scalar, to_expr

__all__ = ["compare_linear", "as_facts", "logic_entailment", "le0_forms"]

_BOOL = DataType("bool")
_TRUE = IntImm(_BOOL, 1)
_FALSE = IntImm(_BOOL, 0)
_ONE = Linear({}, 1)


def le0_forms(s, e: PrimExpr) -> list[Linear] | None:
    """Linear forms whose all being ``<= 0`` is equivalent to the comparison ``e``."""
    cls = type(e)
    if cls not in (LT, LE, GT, GE, EQ) or not is_int_scalar(e.a.dtype):
        return None
    d = s.linear(e.a).plus(s.linear(e.b), -1)  # a - b
    if cls is LT:
        return [d.plus(_ONE)]
    if cls is LE:
        return [d]
    if cls is GT:
        return [d.scaled(-1).plus(_ONE)]
    if cls is GE:
        return [d.scaled(-1)]
    return [d, d.scaled(-1)]


def _negation(d: Linear) -> Linear:
    """``not (d <= 0)`` is ``-d + 1 <= 0`` on integers."""
    return d.scaled(-1).plus(_ONE)


def _decide(s, forms: list[Linear]):
    """True / False / None for the conjunction of ``form <= 0``."""
    if all(s.prove_le0(f) for f in forms):
        return True
    if any(s.prove_le0(_negation(f)) for f in forms):
        return False
    return None


def compare_linear(s, e) -> PrimExpr | None:
    """Decide or normalise an integer comparison."""
    forms = le0_forms(s, e)
    if forms is None:
        if type(e) is NE and is_int_scalar(e.a.dtype):
            r = compare_linear(s, EQ(e.a, e.b))
            if type(r) is IntImm:
                return IntImm(_BOOL, 1 - r.value)
        return None
    verdict = _decide(s, forms)
    if verdict is not None:
        return _TRUE if verdict else _FALSE
    d = forms[0]
    if type(e) is EQ:
        g = _gcd(d)
        if g and d.const % g:
            return _FALSE  # x*2 == 1 has no integer solution
    else:
        dropped = _drop_bounded_remainder(s, d)
        if dropped is not None:
            return _emit_le0(dropped, e.a.dtype)
    return _normalise(s, e, d)


def _drop_bounded_remainder(s, d: Linear) -> Linear | None:
    """``G*X + r + k <= 0`` does not depend on the small term r when G*X, a multiple of G, is
    on the same side of the bound for every r: with ``0 <= r < G`` and ``-k ≡ G-1 (mod G)``,
    or with ``-G < r <= 0`` and ``-k ≡ 0 (mod G)``; it is then ``G*X <= G*floor(-k/G)``
    (``x*8 + y < 16`` with ``0 <= y < 8`` is ``x < 2``)."""
    if len(d.terms) < 2:
        return None
    for key, (atom, c) in d.terms.items():
        g = 0
        for other, (_, oc) in d.terms.items():
            if other != key:
                g = math.gcd(g, oc)
        if g <= 1:
            continue
        lo, hi = s.bound(atom)
        lo, hi = sorted((lo * c, hi * c))
        below = lo >= 0 and hi <= g - 1 and (-d.const) % g == g - 1
        above = lo >= -(g - 1) and hi <= 0 and (-d.const) % g == 0
        if below or above:
            rest = Linear({k: t for k, t in d.terms.items() if k != key}, 0)
            return rest.plus(Linear({}, -g * ((-d.const) // g)))
    return None


def _emit_le0(d: Linear, dtype) -> PrimExpr:
    """``d <= 0`` with the terms' common factor divided out."""
    g = _gcd(d) or 1
    terms = Linear({k: (a, c // g) for k, (a, c) in d.terms.items()}, 0)
    return _emit(LE, terms.plus(Linear({}, -((-d.const) // g))), DataType(dtype))


def _gcd(lin: Linear) -> int:
    g = 0
    for _, c in lin.terms.values():
        g = math.gcd(g, c)
    return g


def _normalise(s, e, d: Linear) -> PrimExpr | None:
    """Rewrite ``e`` as ``P op N + k`` with common factors divided out, if that is smaller."""
    la, lb = s.linear(e.a), s.linear(e.b)
    g = _gcd(d)
    if g == 0:
        return None
    before = la.size() + lb.size()
    if type(e) in (EQ,):
        if d.const % g:
            return _FALSE
        body = Linear({k: (a, c // g) for k, (a, c) in d.terms.items()}, d.const // g)
        op = EQ
    else:
        # every ordered comparison is now ``d <= 0``; divide: d/g <= 0 ⇔ terms/g <= floor(-k/g)
        terms = Linear({k: (a, c // g) for k, (a, c) in d.terms.items()}, 0)
        bound = (-d.const) // g
        body = terms.plus(Linear({}, -bound))
        op = LE
    after = body.size()
    if g == 1 and after >= before:
        return None
    return _emit(op, body, e.a.dtype)


def _emit(op, body: Linear, dtype) -> PrimExpr:
    """``body op 0`` written with positive terms on the left, the rest on the right."""
    pos = Linear({k: t for k, t in body.terms.items() if t[1] > 0}, 0)
    neg = Linear({k: (a, -c) for k, (a, c) in body.terms.items() if c < 0}, 0)
    k = -body.const  # pos - neg op k  ⇔  pos op neg + k
    if not pos.terms:
        # 0 op neg + k  ⇔  neg op' -k  with the comparison flipped
        flipped = {LE: GE, LT: GT, EQ: EQ}[op]
        return flipped(to_expr(neg, dtype), IntImm(dtype, -k))
    if op is LE and (not neg.terms or k == -1):
        op, k = LT, k + 1  # x <= 3 reads better as x < 4, x <= y - 1 as x < y
    return op(to_expr(pos, dtype), to_expr(neg.plus(Linear({}, k)), dtype))


def as_facts(s, cond: PrimExpr) -> tuple[list[Linear], list[PrimExpr]]:
    """Split an assumed condition into linear facts (``F <= 0``) and opaque conditions."""
    linear, opaque = [], []
    stack = [cond]
    while stack:
        c = stack.pop()
        if type(c) is And:
            stack += [c.a, c.b]
            continue
        if type(c) is Not and type(c.a) is Or:
            stack += [Not(c.a.a), Not(c.a.b)]
            continue
        if type(c) is Not and type(c.a) in _NEGATE:
            c = _NEGATE[type(c.a)](c.a.a, c.a.b)
        forms = le0_forms(s, c)
        if forms is not None:
            linear += forms
        else:
            opaque.append(c)
    return linear, opaque


_NEGATE = {LT: GE, LE: GT, GT: LE, GE: LT, EQ: NE, NE: EQ}


def _implies(s, p: list[Linear], q: list[Linear]) -> bool:
    """Does the conjunction of ``p`` (each ``<= 0``) imply that of ``q``?"""
    for f in q:
        if s.lin_bound(f)[1] <= 0:
            continue
        if not any(_implied_by(s, f, g) for g in p):
            return False
    return True


def _implied_by(s, f: Linear, g: Linear) -> bool:
    from .simplifier import _fact_scale

    k = _fact_scale(f, g)
    return bool(k) and s.lin_bound(f.plus(g, -k))[1] <= 0


def logic_entailment(s, e) -> PrimExpr | None:
    """``and``/``or`` of comparisons where one side implies the other or its negation."""
    fa, fb = le0_forms(s, e.a), le0_forms(s, e.b)
    if fa is None or fb is None:
        return None
    if type(e) is And:
        if _implies(s, fa, fb):
            return e.a
        if _implies(s, fb, fa):
            return e.b
        if len(fb) == 1 and _implies(s, fa, [_negation(fb[0])]):
            return _FALSE
        return None
    # Or
    if _implies(s, fa, fb):
        return e.b
    if _implies(s, fb, fa):
        return e.a
    if len(fa) == 1 and _implies(s, [_negation(fa[0])], fb):
        return _TRUE
    return None


"""How ``Analyzer.canonical_simplify`` writes its result: TVM's canonical-form spelling.

The simplifier rebuilds integer sums as positive terms, negative terms, then the
constant.  TVM's canonical simplifier orders the terms of a sum by scale, largest first
(``y*2 + x``), and writes a positive constant right after the positive terms, before the
subtracted ones (``y*2 + 1 - x*2``); a negative constant still comes last.  This pass only
re-spells integer sums; the value never changes.
"""

from __future__ import annotations

from ember.ir import Add, IntImm, Mul, PrimExpr, Sub

from .expr_children import map_children, rewrite_each_once

__all__ = ["to_canonical_form"]


def to_canonical_form(e: PrimExpr) -> PrimExpr:
    """``e`` with every integer sum in TVM's canonical order."""
    return rewrite_each_once(e, _step)


def _step(e, visit):
    return _respell_sum(e, visit) if _is_int_sum(e) else map_children(e, visit)


def _is_int_sum(e) -> bool:
    return type(e) in (Add, Sub) and e.dtype.is_integer and e.dtype.lanes == 1


def _flatten(e, sign: int, terms: list) -> int:
    """Collect ``(atom, coeff)`` of a sum into ``terms``; returns its constant."""
    cls = type(e)
    if cls is IntImm:
        return sign * e.value
    if cls is Add:
        return _flatten(e.a, sign, terms) + _flatten(e.b, sign, terms)
    if cls is Sub:
        return _flatten(e.a, sign, terms) + _flatten(e.b, -sign, terms)
    if cls is Mul and type(e.b) is IntImm:
        terms.append((e.a, sign * e.b.value))
        return 0
    if cls is Mul and type(e.a) is IntImm:  # 48 * x is written x * 48
        terms.append((e.b, sign * e.a.value))
        return 0
    terms.append((e, sign))
    return 0


def _respell_sum(e, visit) -> PrimExpr:
    terms: list = []
    const = _flatten(e, 1, terms)
    if any(c == 0 for _, c in terms):
        return e
    dt = e.dtype
    terms = [(visit(a), c) for a, c in terms]
    terms.sort(key=lambda t: -t[1])  # larger scales first (signed), stable
    pos = [(a, c) for a, c in terms if c > 0]
    neg = [(a, -c) for a, c in terms if c < 0]

    def term(a, c):
        return a if c == 1 else Mul(a, IntImm(dt, c))

    out = None
    for a, c in pos:
        out = term(a, c) if out is None else Add(out, term(a, c))
    if const > 0:
        out = IntImm(dt, const) if out is None else Add(out, IntImm(dt, const))
        const = 0
    if out is None:
        if not neg:
            return IntImm(dt, const)
        a, c = neg.pop(0)
        out = Mul(a, IntImm(dt, -c))
    for a, c in neg:
        out = Sub(out, term(a, c))
    if const < 0:
        out = Sub(out, IntImm(dt, -const))
    return out

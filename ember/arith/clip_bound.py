"""``detect_clip_bound``: per-variable bounds stated by a conjunction of comparisons.

``detect_clip_bound(cond, [v0, v1, …])`` reads ``cond = c1 and c2 and …`` and returns
``[min0, max0, min1, max1, …]``: for each variable the tightest bounds that terms of the
form ``±v + e (<, <=, >, >=, ==) …`` give (``e`` free of the variables).  A bound no
term gives is ``neg_inf`` / ``pos_inf``.  When a term relates two of the variables the
answer is ``[]``: such a condition is not a clip box.  ``min(x, y) > c`` and
``max(x, y) < c`` count as two terms, as they say the same of both operands.
"""

from __future__ import annotations

from ember.ir import PrimExpr, Var
from ember.ir import expr as E

from .analyzer import Analyzer
from .int_set import neg_inf, pos_inf
from .linear_equation import detect_linear_equation

__all__ = ["detect_clip_bound"]


def detect_clip_bound(cond: PrimExpr, var_list) -> list:
    """``[min0, max0, min1, max1, …]`` of ``var_list`` under ``cond``, or ``[]`` (see above)."""
    if not isinstance(cond, PrimExpr):
        raise TypeError(f"detect_clip_bound: 'cond' must be a PrimExpr, got {type(cond).__name__}")
    var_list = list(var_list)
    if not all(isinstance(v, Var) for v in var_list):
        raise TypeError("detect_clip_bound: 'var_list' must hold Vars")
    analyzer = Analyzer()
    lows: list = [None] * len(var_list)
    highs: list = [None] * len(var_list)
    for diff in _nonpositive_terms(cond):  # each term says diff <= 0
        coeffs = detect_linear_equation(diff, var_list)
        if not coeffs:
            continue
        base = coeffs[-1]
        used = [k for k, c in enumerate(coeffs[:-1]) if not _is_zero(analyzer.simplify(c))]
        if len(used) > 1:
            return []
        if not used:
            continue
        k = used[0]
        c = analyzer.simplify(coeffs[k])
        if _is_const(c, 1):  # v + base <= 0: v <= -base
            highs[k] = _tighter(analyzer, highs[k], analyzer.simplify(0 - base), E.Min)
        elif _is_const(c, -1):  # -v + base <= 0: v >= base
            lows[k] = _tighter(analyzer, lows[k], analyzer.simplify(base), E.Max)
    out = []
    for lo, hi in zip(lows, highs):
        out += [neg_inf() if lo is None else lo, pos_inf() if hi is None else hi]
    return out


def _nonpositive_terms(cond) -> list:
    """The conjuncts of ``cond`` rewritten as differences that must be <= 0."""
    if isinstance(cond, E.And):
        return _nonpositive_terms(cond.a) + _nonpositive_terms(cond.b)
    if isinstance(cond, E.Not):
        inner = cond.a
        flipped = {E.LT: E.GE, E.LE: E.GT, E.GT: E.LE, E.GE: E.LT}.get(type(inner))
        return _nonpositive_terms(flipped(inner.a, inner.b)) if flipped else []
    if isinstance(cond, E.GT | E.GE):  # b < a, b <= a
        return _nonpositive_terms((E.LT if isinstance(cond, E.GT) else E.LE)(cond.b, cond.a))
    if isinstance(cond, E.LT | E.LE):
        a, b = cond.a, cond.b
        if isinstance(a, E.Max):  # max(x, y) < b: both are
            return _nonpositive_terms(type(cond)(a.a, b)) + _nonpositive_terms(type(cond)(a.b, b))
        if isinstance(b, E.Min):  # a < min(x, y): below both
            return _nonpositive_terms(type(cond)(a, b.a)) + _nonpositive_terms(type(cond)(a, b.b))
        if not (a.dtype.is_int or a.dtype.is_uint):
            return []
        return [a - b + 1] if isinstance(cond, E.LT) else [a - b]
    if isinstance(cond, E.EQ) and (cond.a.dtype.is_int or cond.a.dtype.is_uint):
        return [cond.a - cond.b, cond.b - cond.a]
    return []


def _tighter(analyzer, old, new, pick):
    return new if old is None else analyzer.simplify(pick(old, new))


def _is_zero(e) -> bool:
    return _is_const(e, 0)


def _is_const(e, value) -> bool:
    return isinstance(e, E.IntImm) and e.value == value or (isinstance(e, int) and e == value)


"""``deduce_bound``: the values of one variable for which a comparison holds.

``deduce_bound(x, cond, hint_map, relax_map)`` answers an ``IntSet`` for ``x`` such
that ``cond`` (``<``, ``<=``, ``>``, ``>=`` or ``==``) holds: ``[lo, +inf)``,
``(-inf, hi]`` or a single point.  The variable must occur exactly once, under ``+``,
``-``, ``*`` and ``//`` only (by factors/divisors free of it); the condition is peeled
from the top down, moving each other operand to the bound side (``x*4 + b < c`` gives
``x <= (c - 1 - b) // 4``).  A factor's sign is read from ``hint_map`` (sets of the
other variables); the finished bound is relaxed over ``relax_map`` so that it holds
for every value of those variables (the largest lower bound, the smallest upper
bound).  Anything else answers the empty set.
"""

from __future__ import annotations

from ember.ir import (
    EQ, GE, GT, LE, LT, Add, FloorDiv, IntImm, Mul, PrimExpr, Range, Sub, Var, as_expr,
)

from .int_set import IntSet, eval_set, is_neg_inf, is_pos_inf

__all__ = ["deduce_bound"]

_SWAP = {LT: GT, LE: GE, GT: LT, GE: LE, EQ: EQ}


class _Unsupported(Exception):
    """The condition is not of a form bound deduction handles."""


def deduce_bound(var, cond, hint_map=None, relax_map=None) -> IntSet:
    """The set of values of ``var`` for which ``cond`` holds (see the module docstring)."""
    from .analyzer import Analyzer

    ana = Analyzer()
    hint = _as_sets(hint_map, ana)
    relax = _as_sets(relax_map, ana)
    ana.hinted = _analyzer_knowing(hint)
    try:
        target, op, bound = _orient(var, as_expr(cond))
        op, bound = _peel(var, target, op, bound, hint, relax, ana)
        return _finish(op, _relax(op, bound, relax, ana))
    except _Unsupported:
        return IntSet.nothing()


def _analyzer_knowing(hint: dict):
    """An analyzer that knows the constant ends of the hinted sets (for divisibility
    proofs such as ``b % b == 0`` when ``b`` is in ``[2, 3]``)."""
    from .analyzer import Analyzer
    from .const_int_bound import ConstIntBound

    ana = Analyzer()
    for v, s in hint.items():
        lo, hi = s.min_value, s.max_value
        if type(lo) is IntImm and type(hi) is IntImm:
            ana.update(v, ConstIntBound(lo.value, hi.value), override=True)
    return ana


def _hinted(ana):
    return ana.hinted  # set by deduce_bound on its private analyzer


def _as_sets(m, ana) -> dict:
    out = {}
    for v, s in (m or {}).items():
        if isinstance(s, Range):
            s = IntSet.from_range(s)
        out[v] = s
    return out


def _count(var: Var, e) -> int:
    from ember.tir import post_order_visit

    n = [0]

    def visit(node):
        if node is var:
            n[0] += 1

    post_order_visit(e, visit)
    return n[0]


def _orient(var, cond):
    """``(side with var, op, other side)``, the op normalised to ``>=``, ``<=`` or ``==``."""
    cls = type(cond)
    if cls not in _SWAP:
        raise _Unsupported
    na, nb = _count(var, cond.a), _count(var, cond.b)
    if na + nb != 1:
        raise _Unsupported
    target, other = (cond.a, cond.b) if na else (cond.b, cond.a)
    if not na:
        cls = _SWAP[cls]
    one = IntImm(other.dtype, 1)
    if cls is GT:
        return target, GE, other + one
    if cls is LT:
        return target, LE, other - one
    return target, cls, other


def _sign(e, hint, ana) -> int:
    s = eval_set(e, hint, ana)
    lo, hi = s.min_value, s.max_value
    if not is_neg_inf(lo) and ana.can_prove(lo > 0):
        return 1
    if not is_pos_inf(hi) and ana.can_prove(hi < 0):
        return -1
    raise _Unsupported


def _peel(var, e, op, bound, hint, relax, ana):
    """Walk from the comparison down to ``var``; answer ``(op, bound)`` with ``var op bound``."""
    flip = {GE: LE, LE: GE, EQ: EQ}
    while e is not var:
        cls = type(e)
        in_a = cls in (Add, Sub, Mul, FloorDiv) and _count(var, e.a) == 1
        if cls is Add:
            inner, other = (e.a, e.b) if in_a else (e.b, e.a)
            bound = bound - other
        elif cls is Sub:
            if in_a:
                inner, bound = e.a, bound + e.b
            else:  # a - x op r  ⇔  x op' a - r
                inner, bound, op = e.b, e.a - bound, flip[op]
        elif cls is Mul:
            inner, k = (e.a, e.b) if in_a else (e.b, e.a)
            bound = _relax(op, bound, relax, ana)
            op, bound = _divide(op, bound, k, _sign(k, hint, ana), ana)
        elif cls is FloorDiv and in_a:
            inner = e.a
            bound = _relax(op, bound, relax, ana)
            op, bound = _undo_floordiv(op, bound, e.b, _sign(e.b, hint, ana))
        else:
            raise _Unsupported
        e = inner
    return op, ana.simplify(bound)


def _divide(op, bound, k, sign, ana):
    """``x * k op r`` as ``x op' r // k`` (rounded so the answer stays sufficient)."""
    if sign < 0:
        op = {GE: LE, LE: GE, EQ: EQ}[op]
    exact = _hinted(ana).can_prove(bound % k == 0)
    if op is EQ:
        if not exact:
            raise _Unsupported  # no integer solution can be promised
        return op, _hinted(ana).simplify(bound // k)
    q = bound // k
    if op is GE and not exact:
        q = q + 1  # x >= ceil(r / k)
    return op, q


def _undo_floordiv(op, bound, k, sign):
    """``x // k op r``: a bound on x itself (k > 0 or k < 0)."""
    if op is EQ:
        raise _Unsupported  # a range, not a point: no single bound to answer
    one = IntImm(bound.dtype, 1)
    if sign > 0:  # x//k >= r ⇔ x >= r*k;  x//k <= r ⇔ x <= r*k + k - 1
        return (GE, bound * k) if op is GE else (LE, bound * k + k - one)
    # k < 0: x//k >= r ⇔ x <= r*k;  x//k <= r ⇔ x >= r*k + k + 1
    return (LE, bound * k) if op is GE else (GE, bound * k + k + one)


def _relax(op, bound: PrimExpr, relax, ana) -> PrimExpr:
    """The bound that holds for every value of the relaxed variables."""
    if not relax:
        return ana.simplify(bound)
    s = eval_set(bound, relax, ana)
    if op is EQ:
        if not ana.can_prove(s.min_value == s.max_value):
            raise _Unsupported
        bound = s.min_value
    else:
        bound = s.max_value if op is GE else s.min_value
    if is_pos_inf(bound) or is_neg_inf(bound):
        raise _Unsupported
    return ana.simplify(bound)


def _finish(op, bound: PrimExpr) -> IntSet:
    if op is GE:
        return IntSet(bound, IntSet.everything().max_value)
    if op is LE:
        return IntSet(IntSet.everything().min_value, bound)
    return IntSet(bound, bound)

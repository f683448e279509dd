"""Simplifier rules for a conditional nested in a branch of another (``if_then_else`` and
``select``), decided from the outer condition without entering a constraint scope:

- the inner condition follows from the outer one (or contradicts it): the inner
  conditional is replaced by the branch it takes — ``if_then_else(2 < x,
  if_then_else(1 < x, 1, 0), 0)`` → ``if_then_else(2 < x, 1, 0)``;
- the inner conditional shares the outer's else value: the two conditions are joined —
  ``if_then_else(c1, if_then_else(c2, a, b), b)`` → ``if_then_else(c1 and c2, a, b)``.
"""

from __future__ import annotations

from ember.ir import And, Call, PrimExpr, Select, replace

from .rules_logic import _implies, _negation, le0_forms

__all__ = ["nested_conditional"]


def _parts(e):
    """``(cond, then, else)`` of an ``if_then_else`` call or a select, else None."""
    if type(e) is Select:
        return e.condition, e.true_value, e.false_value
    if type(e) is Call and getattr(e.op, "name", None) == "tir.if_then_else" and len(e.args) == 3:
        return tuple(e.args)
    return None


def _rebuild(e, cond, then, other):
    if type(e) is Select:
        return Select(cond, then, other)
    return replace(e, args=(cond, then, other))


def _decided(s, outer: PrimExpr, inner: PrimExpr):
    """True / False when ``outer`` implies ``inner`` / its negation, else None."""
    fo, fi = le0_forms(s, outer), le0_forms(s, inner)
    if fo is None or fi is None:
        return None
    if _implies(s, fo, fi):
        return True
    if len(fi) == 1 and _implies(s, fo, [_negation(fi[0])]):
        return False
    return None


def nested_conditional(s, e) -> PrimExpr | None:
    outer = _parts(e)
    if outer is None:
        return None
    cond, then, other = outer
    inner = _parts(then)
    if inner is None or type(then) is not type(e):
        return None
    verdict = _decided(s, cond, inner[0])
    if verdict is not None:
        return _rebuild(e, cond, inner[1] if verdict else inner[2], other)
    if s.same(inner[2], other):
        return _rebuild(e, And(cond, inner[0]), inner[1], other)
    return None

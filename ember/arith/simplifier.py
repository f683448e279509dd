"""The rewrite driver: simplify children, then apply the rule table of the node's type.

``Simplifier(analyzer).visit(expr)`` works bottom-up.  After a node's children are
simplified, the rules listed for its type in ``rules.RULES`` are tried in order; each
is a function ``(simplifier, expr) -> expr | None`` (pattern ``Rule`` objects included).
The first hit is simplified again (its new children, then its rules) up to a small
depth, so rules chain to a fixpoint.  Results are memoised per analyzer; the memo is
dropped whenever the analyzer learns something new (bind, update, constraint scopes).
"""

from __future__ import annotations

from ember.error import DivisionByZeroError

from ember.ir import (
    Broadcast, Call, Cast, IntImm, Let, Max, Min, Node, Not, PrimExpr, Ramp, Select, Var, fields_of,
    replace,
)
from ember.ir.expr import BinaryOp

from .const_int_bound import bound_of
from .linear import Linear, is_int_scalar, linearize

__all__ = ["Simplifier"]

_MAX_DEPTH = 12


class Simplifier:
    """One simplification run against an analyzer's knowledge (bounds, facts, caches)."""

    __slots__ = ("ana", "keys")

    def __init__(self, ana):
        self.ana = ana
        self.keys = ana._keys
        if _rules_for is None:
            _load_rules()

    def mark_simplified(self, e: PrimExpr) -> PrimExpr:
        """Record ``e`` as already simplified (a fixpoint) so it is not rewritten again."""
        self.ana._simplify_cache.setdefault(id(e), (e, e))
        return e

    # -- public helpers used by rules ---------------------------------------------
    def visit(self, e: PrimExpr) -> PrimExpr:
        cache = self.ana._simplify_cache
        hit = cache.get(id(e))
        if hit is not None:
            return hit[1]
        if isinstance(e, BinaryOp):
            _walk_spine(e, cache, self.visit)
        r = self._rewrite(e, 0)
        if self.ana._opaque_facts and isinstance(r, PrimExpr) and type(r) is not IntImm and r.dtype.is_bool:
            r = self._known(r)
        cache[id(e)] = (e, r)
        if r is not e and id(r) not in cache:
            cache[id(r)] = (r, r)
        return r

    def bound(self, e: PrimExpr) -> tuple:
        return bound_of(self.ana, e)

    def linear(self, e: PrimExpr) -> Linear:
        return linearize(self, e)

    def same(self, a: PrimExpr, b: PrimExpr) -> bool:
        return a is b or self.keys.key(a) == self.keys.key(b)

    def lin_bound(self, lin: Linear) -> tuple:
        """Interval bound of a linear form from the bounds of its atoms."""
        lo = hi = lin.const
        for atom, c in lin.terms.values():
            a_lo, a_hi = bound_of(self.ana, atom)
            if c > 0:
                lo, hi = lo + _mul(c, a_lo), hi + _mul(c, a_hi)
            else:
                lo, hi = lo + _mul(c, a_hi), hi + _mul(c, a_lo)
        return lo, hi

    def prove_le0(self, lin: Linear, depth: int = 2) -> bool:
        """True when ``lin <= 0`` follows from bounds, the analyzer's facts, or from
        relaxing ``min``/``max`` terms (``min(a, b) <= a``, ``max(a, b) >= a``)."""
        if self.lin_bound(lin)[1] <= 0:
            return True
        for fact in self.ana._facts.sharing(lin):
            k = _fact_scale(lin, fact)
            if k and self.lin_bound(lin.plus(fact, -k))[1] <= 0:
                return True
        if depth:
            for key, (atom, c) in lin.terms.items():
                cls = type(atom)
                if cls is not Min and cls is not Max:
                    continue
                rest = lin.plus(Linear({key: (atom, c)}), -1)
                sides = [rest.plus(self.linear(side), c) for side in (atom.a, atom.b)]
                if (cls is Min) == (c > 0):  # min(a, b) <= a: one side suffices
                    if any(self.prove_le0(f, depth - 1) for f in sides):
                        return True
                elif all(self.prove_le0(_recombined(self, f, atom.dtype), depth - 1) for f in sides):
                    return True  # max(a, b) <= t needs both a <= t and b <= t
        return False

    # -- driver --------------------------------------------------------------------
    def _rewrite(self, e: PrimExpr, depth: int) -> PrimExpr:
        if depth:
            hit = self.ana._simplify_cache.get(id(e))
            if hit is not None:
                return hit[1]
        e = self._children(e)
        if type(e) is IntImm:
            return e
        rules = _RULES.get(type(e))
        if rules is None:
            rules = _rules_for(type(e))
        dtype = None
        for rule in rules:
            try:
                r = rule(self, e)
            except DivisionByZeroError:  # the rule would fold x // 0: leave it to run time
                continue
            if r is None or r is e:
                continue
            if dtype is None:
                dtype = e.dtype
            if r.dtype is not dtype:
                continue
            if self.same(r, e):
                return e
            if depth >= _MAX_DEPTH:
                return r
            return self._rewrite(r, depth + 1)
        return e

    def _children(self, e: PrimExpr) -> PrimExpr:
        cls = type(e)
        if isinstance(e, BinaryOp):
            a, b = self.visit(e.a), self.visit(e.b)
            return e if (a is e.a and b is e.b) else cls(a, b)
        if isinstance(e, Var):
            return self._var(e)
        if cls is IntImm or not isinstance(e, PrimExpr):
            return e
        if cls is Not:
            return replace(e, a=self.visit(e.a))
        if cls is Select:
            return replace(e, condition=self.visit(e.condition),
                           true_value=self.visit(e.true_value), false_value=self.visit(e.false_value))
        if cls is Cast:
            return replace(e, value=self.visit(e.value))
        if cls is Call:
            args = tuple(self.visit(a) for a in e.args)
            return e if all(x is y for x, y in zip(args, e.args)) else replace(e, args=args)
        if cls is Ramp:
            return replace(e, base=self.visit(e.base), stride=self.visit(e.stride))
        if cls is Broadcast:
            return replace(e, value=self.visit(e.value))
        if cls is Let:
            return self._let(e)
        return self._generic(e)

    def _known(self, cond: PrimExpr) -> PrimExpr:
        """True/False for a condition assumed (or assumed false) by a constraint scope."""
        for fact in self.ana._opaque_facts:
            if self.same(cond, fact):
                return IntImm(cond.dtype, 1)
            if type(fact) is Not and self.same(cond, fact.a):
                return IntImm(cond.dtype, 0)
        return cond

    def _var(self, v: Var) -> PrimExpr:
        self.ana._seen.add(id(v))
        value = self.ana._var_values.get(v)
        if value is not None:
            return value
        if is_int_scalar(v.dtype):
            lo, hi = bound_of(self.ana, v)
            if lo == hi:
                return IntImm(v.dtype, int(lo))
        return v

    def _let(self, e: Let) -> PrimExpr:
        value = self.visit(e.value)
        if type(value) is IntImm or isinstance(value, Var):
            return self.ana._with_value(e.var, value, lambda: self.visit(e.body))
        body = self.ana._with_bound(e.var, bound_of(self.ana, value), lambda: self.visit(e.body))
        return replace(e, value=value, body=body)

    def _generic(self, e: Node) -> Node:
        changes = {}
        for name in fields_of(type(e)):
            v = getattr(e, name)
            if isinstance(v, PrimExpr) and not isinstance(v, Var):
                nv = self.visit(v)
                if nv is not v:
                    changes[name] = nv
            elif isinstance(v, tuple) and v and all(isinstance(x, PrimExpr) for x in v):
                nv = tuple(self.visit(x) for x in v)
                if any(a is not b for a, b in zip(nv, v)):
                    changes[name] = nv
        return replace(e, **changes) if changes else e


_SPINE = 24


def _walk_spine(e, cache: dict, fn) -> None:
    """Process a long left spine (``((a + b) + c) + …``) bottom-up without deep recursion."""
    spine = []
    cur = e.a
    while isinstance(cur, BinaryOp) and id(cur) not in cache:
        spine.append(cur)
        cur = cur.a
    if len(spine) > _SPINE:
        for node in reversed(spine):
            fn(node)


def _load_rules():
    global _RULES, _rules_for
    from .rules import RULES, rules_for

    _RULES, _rules_for = RULES, rules_for


_RULES: dict = {}
_rules_for = None


def _mul(c: int, v):
    return 0 if v == 0 else c * v


def _recombined(s, lin: Linear, dtype) -> Linear:
    from .rules_logic import _recombine

    return _recombine(s, lin, dtype)


def _fact_scale(lin: Linear, fact: Linear) -> int:
    """A positive k such that ``lin`` and ``k * fact`` share an atom coefficient, or 0."""
    for key, (_, c) in fact.terms.items():
        mine = lin.terms.get(key)
        if mine is not None:
            k, r = divmod(mine[1], c)
            return k if r == 0 and k > 0 else 0
    return 0

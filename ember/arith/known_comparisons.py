"""Comparisons known to hold (branch conditions), and what they prove about others.

``KnownComparisons`` keeps integer comparisons such as ``i < j``, ``j <= k + 7`` or
``i != 0`` as difference bounds ``x - y <= c`` between *terms* (any integer expression
without its constant part, or zero).  ``rewrite(expr)`` then replaces each comparison in
``expr`` whose value the bounds decide by ``True`` / ``False``, and one that the bounds
narrow by the stronger comparison (TVM's "most restrictive" rewrite): knowing ``i <= j``,
``j <= i`` is ``j == i`` and ``i != j`` is ``i < j``; knowing ``i != j``, ``i <= j`` is
``i < j``.

With ``transitive=True`` (TVM's ``TransitivelyProveInequalities`` extension) bounds
chain through other terms: ``i < j`` and ``j < k + 7`` prove ``i < k + 6 + 1``.  Without
it only the bounds between the two terms of the comparison itself count.
"""

from __future__ import annotations

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, IntImm, Mul, Not, Or, PrimExpr, Sub, const, structural_equal,
)

__all__ = ["KnownComparisons"]

_INF = float("inf")


def _linear(e, scale, out: list, consts: list) -> bool:
    """Add ``scale * e`` to ``out`` (pairs [term, coefficient]) and ``consts``; False when
    ``e`` is not a sum of terms with constant coefficients."""
    if isinstance(e, IntImm):
        consts[0] += scale * e.value
        return True
    if isinstance(e, Add):
        return _linear(e.a, scale, out, consts) and _linear(e.b, scale, out, consts)
    if isinstance(e, Sub):
        return _linear(e.a, scale, out, consts) and _linear(e.b, -scale, out, consts)
    if isinstance(e, Mul) and isinstance(e.b, IntImm):
        return _linear(e.a, scale * e.b.value, out, consts)
    if isinstance(e, Mul) and isinstance(e.a, IntImm):
        return _linear(e.b, scale * e.a.value, out, consts)
    for pair in out:
        if structural_equal(pair[0], e, map_free_vars=False):
            pair[1] += scale
            return True
    out.append([e, scale])
    return True


def _difference(a, b):
    """``a - b`` as ``(x, y, c)`` meaning ``x - y + c`` with terms x, y (None = zero), or None."""
    if not (a.dtype.is_int or a.dtype.is_uint) or a.dtype.lanes != 1:
        return None
    terms, consts = [], [0]
    if not (_linear(a, 1, terms, consts) and _linear(b, -1, terms, consts)):
        return None
    terms = [t for t in terms if t[1] != 0]
    pos = [t[0] for t in terms if t[1] == 1]
    neg = [t[0] for t in terms if t[1] == -1]
    if len(pos) + len(neg) != len(terms) or len(pos) > 1 or len(neg) > 1:
        return None
    return (pos[0] if pos else None), (neg[0] if neg else None), consts[0]


class KnownComparisons:
    """Difference bounds between terms, from comparisons known to hold."""

    def __init__(self, transitive: bool = False):
        self.transitive = transitive
        self.terms: list = [None]  # index 0 is zero
        self.upper: dict = {}  # (x, y) -> c with x - y <= c
        self.unequal: list = []  # (x, y, c): x - y != c

    def _index(self, term) -> int:
        if term is None:
            return 0
        for n, t in enumerate(self.terms):
            if t is not None and structural_equal(t, term, map_free_vars=False):
                return n
        self.terms.append(term)
        return len(self.terms) - 1

    def _bound(self, x: int, y: int, c: int) -> None:
        if c < self.upper.get((x, y), _INF):
            self.upper[(x, y)] = c

    def add(self, cond) -> None:
        """Learn ``cond``: a comparison, or a conjunction of them (others are ignored)."""
        if isinstance(cond, And):
            self.add(cond.a)
            self.add(cond.b)
            return
        if isinstance(cond, Not) and isinstance(cond.a, Or):  # !(a || b) is !a && !b
            self.add(Not(cond.a.a))
            self.add(Not(cond.a.b))
            return
        if isinstance(cond, Not):
            cond = _negate(cond.a)
            if cond is None:
                return
        if not isinstance(cond, EQ | NE | LT | LE | GT | GE):
            return
        d = _difference(cond.a, cond.b)
        if d is None:
            return
        x, y, c = self._index(d[0]), self._index(d[1]), d[2]
        # x - y + c OP 0
        if isinstance(cond, LT):
            self._bound(x, y, -c - 1)
        elif isinstance(cond, LE):
            self._bound(x, y, -c)
        elif isinstance(cond, GT):
            self._bound(y, x, c - 1)
        elif isinstance(cond, GE):
            self._bound(y, x, c)
        elif isinstance(cond, EQ):
            self._bound(x, y, -c)
            self._bound(y, x, c)
        else:
            self.unequal.append((x, y, -c))

    def __bool__(self) -> bool:
        return bool(self.upper or self.unequal)

    # -- queries -----------------------------------------------------------------------

    def _closure(self) -> dict:
        dist = dict(self.upper)
        if not self.transitive:
            return dist
        n = len(self.terms)
        for k in range(n):
            for i in range(n):
                ik = dist.get((i, k))
                if ik is None:
                    continue
                for j in range(n):
                    kj = dist.get((k, j))
                    if kj is not None and ik + kj < dist.get((i, j), _INF):
                        dist[(i, j)] = ik + kj
        return dist

    def rewrite(self, expr: PrimExpr) -> PrimExpr:
        """``expr`` with every comparison the known bounds decide or narrow rewritten."""
        if not self:
            return expr
        dist = self._closure()
        return self._rewrite(expr, dist)

    def _rewrite(self, e, dist):
        if isinstance(e, And | Or):
            a, b = self._rewrite(e.a, dist), self._rewrite(e.b, dist)
            return e if a is e.a and b is e.b else type(e)(a, b)
        if isinstance(e, Not):
            a = self._rewrite(e.a, dist)
            return e if a is e.a else Not(a)
        if isinstance(e, EQ | NE | LT | LE | GT | GE):
            out = self._compare(e, dist)
            return e if out is None else out
        return e

    def _range(self, x, y, c, dist):
        """Known [lo, hi] of ``x - y + c`` (terms by index), infinite ends when unknown."""
        hi = dist.get((x, y), _INF) + c
        lo = -dist.get((y, x), _INF) + c
        return lo, hi

    def _is_unequal(self, x, y, c, dist) -> bool:
        """Whether ``x - y + c != 0`` is known: from ``ux - uy != uc`` and exactly known
        differences ``x - ux`` and ``uy - y`` (both zero without ``transitive``)."""

        def exact(a, b):
            if a == b:
                return 0
            up, down = dist.get((a, b)), dist.get((b, a))
            return up if up is not None and down is not None and up == -down else None

        for ux, uy, uc in self.unequal:
            for fx, fy, fc in ((ux, uy, uc), (uy, ux, -uc)):
                d1, d2 = exact(x, fx), exact(fy, y)
                if d1 is not None and d2 is not None and d1 + fc + d2 + c == 0:
                    return True
        return False

    def _compare(self, e, dist):
        d = _difference(e.a, e.b)
        if d is None:
            return None
        x, y = self._index_if_known(d[0]), self._index_if_known(d[1])
        if x is None or y is None:
            return None
        lo, hi = self._range(x, y, d[2], dist)
        ne = self._is_unequal(x, y, d[2], dist)
        true, false = const(True, "bool"), const(False, "bool")
        def equal():  # a constant goes to the right, as the simplifier writes it
            return EQ(e.b, e.a) if isinstance(e.a, IntImm) and not isinstance(e.b, IntImm) else EQ(e.a, e.b)

        # the value v = a - b; the comparison asks v OP 0
        if isinstance(e, LT):
            return true if hi <= -1 else false if lo >= 0 else None
        if isinstance(e, GT):
            return true if lo >= 1 else false if hi <= 0 else None
        if isinstance(e, LE):
            if hi <= 0:
                return true
            if lo > 0:
                return false
            return equal() if lo == 0 else LT(e.a, e.b) if ne else None
        if isinstance(e, GE):
            if lo >= 0:
                return true
            if hi < 0:
                return false
            return equal() if hi == 0 else GT(e.a, e.b) if ne else None
        if isinstance(e, EQ):
            if lo == hi == 0:
                return true
            if lo > 0 or hi < 0 or ne:
                return false
            return None
        # NE
        if lo > 0 or hi < 0 or ne:
            return true
        if lo == hi == 0:
            return false
        if hi == 0:
            return LT(e.a, e.b)
        if lo == 0:
            return GT(e.a, e.b)
        return None

    def _index_if_known(self, term):
        if term is None:
            return 0
        for n, t in enumerate(self.terms):
            if t is not None and structural_equal(t, term, map_free_vars=False):
                return n
        return None


def _negate(cond):
    flip = {LT: GE, LE: GT, GT: LE, GE: LT, EQ: NE, NE: EQ}
    if type(cond) in flip:
        return flip[type(cond)](cond.a, cond.b)
    return None

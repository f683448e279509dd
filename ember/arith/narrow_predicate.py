"""Narrowing a predicate so that it no longer depends on some variables.

``narrow_predicate_expression(pred, ranges)`` returns a predicate without the variables
of ``ranges`` that *implies* ``pred`` for every value those variables can take (a
sufficient condition).  Each comparison is made stricter by replacing every ranged
variable with the end of its range that makes the comparison hardest to satisfy, which
is sound while the sides are monotonic in those variables (sums, differences, products
and quotients by constants, min, max, casts).  Where that cannot be shown (``%``, a
division by a variable, a buffer load) the comparison becomes ``False``.  The output
keeps the input's shape (no simplification) so callers can tell what was replaced.
"""

from __future__ import annotations

from ember.ir import IntImm, PrimExpr, Range, Var, const, replace
from ember.ir import expr as E

__all__ = ["narrow_predicate_expression"]


class _Bail(Exception):
    """The expression is not monotonic in the ranged variables."""


_COMPARE = (E.LT, E.LE, E.GT, E.GE, E.EQ, E.NE)


def narrow_predicate_expression(pred: PrimExpr, ranges: dict) -> PrimExpr:
    """A predicate free of ``ranges``' variables that implies ``pred`` (see the module doc)."""
    if not isinstance(pred, PrimExpr):
        raise TypeError(f"narrow_predicate_expression: 'pred' must be a PrimExpr, got {type(pred).__name__}")
    bounds = {}
    for var, rng in dict(ranges or {}).items():
        if not isinstance(var, Var) or not isinstance(rng, Range):
            raise TypeError("narrow_predicate_expression: 'ranges' must map Vars to Ranges, got "
                            f"{type(var).__name__} -> {type(rng).__name__}")
        bounds[var] = (rng.min, _last(rng))
    out = _Narrower(bounds).predicate(pred, True)
    return out if out is not None else const(False, "bool")


def _last(rng: Range) -> PrimExpr:
    if isinstance(rng.min, IntImm) and isinstance(rng.extent, IntImm):
        return const(rng.min.value + rng.extent.value - 1, rng.extent.dtype)
    return rng.min + rng.extent - 1


class _Narrower:
    def __init__(self, bounds: dict) -> None:
        self.bounds = bounds

    # -- predicates: `strict` asks for a sufficient condition, otherwise a necessary one --
    def predicate(self, e: PrimExpr, strict: bool):
        """The narrowed (strict) or widened predicate, or None when it cannot be found."""
        if isinstance(e, E.And | E.Or):
            fallback = const(not strict, "bool")
            a = self.predicate(e.a, strict)
            b = self.predicate(e.b, strict)
            return replace(e, a=fallback if a is None else a, b=fallback if b is None else b)
        if isinstance(e, E.Not):
            inner = self.predicate(e.a, not strict)
            return None if inner is None else replace(e, a=inner)
        if isinstance(e, _COMPARE):
            try:
                return self.compare(e, strict)
            except _Bail:
                return None
        try:
            return self.side(e, True)  # a boolean variable or constant: leave it as it is
        except _Bail:
            return None

    def compare(self, e, strict: bool) -> PrimExpr:
        # `small` sides are made as large as they may be when strict (and vice versa).
        if isinstance(e, E.LT | E.LE):
            return replace(e, a=self.side(e.a, strict), b=self.side(e.b, not strict))
        if isinstance(e, E.GT | E.GE):
            return replace(e, a=self.side(e.a, not strict), b=self.side(e.b, strict))
        a_hi, a_lo = self.side(e.a, strict), self.side(e.a, not strict)
        b_hi, b_lo = self.side(e.b, strict), self.side(e.b, not strict)
        if isinstance(e, E.EQ) == strict:  # a <= b and b <= a
            return E.And(E.LE(a_hi, b_lo), E.LE(b_hi, a_lo))
        return E.Or(E.LT(a_hi, b_lo), E.LT(b_hi, a_lo))

    # -- arithmetic: the expression at its largest (upper) or smallest value --------------
    def side(self, e: PrimExpr, upper: bool) -> PrimExpr:
        if isinstance(e, Var):
            b = self.bounds.get(e)
            return e if b is None else (b[1] if upper else b[0])
        if isinstance(e, E.IntImm | E.FloatImm | E.StringImm):
            return e
        if isinstance(e, E.Add | E.Min | E.Max):
            return replace(e, a=self.side(e.a, upper), b=self.side(e.b, upper))
        if isinstance(e, E.Sub):
            return replace(e, a=self.side(e.a, upper), b=self.side(e.b, not upper))
        if isinstance(e, E.Cast):
            return replace(e, value=self.side(e.value, upper))
        if isinstance(e, E.Mul):
            if self.free(e.a) and self.free(e.b):
                return e
            const_side, other = (e.a, "b") if _const(e.a) is not None else (e.b, "a")
            c = _const(const_side)
            if c is None:
                raise _Bail
            return replace(e, **{other: self.side(getattr(e, other), upper if c >= 0 else not upper)})
        if isinstance(e, E.FloorDiv | E.Div):
            c = _const(e.b)
            if c is None or c == 0:
                raise _Bail
            return replace(e, a=self.side(e.a, upper if c > 0 else not upper))
        raise _Bail  # %, buffer loads, calls, selects: not known to be monotonic

    def free(self, e) -> bool:
        """Whether ``e`` has none of the ranged variables (and nothing to bail on)."""
        try:
            return self.side(e, True) is e
        except _Bail:
            return False


def _const(e):
    return e.value if isinstance(e, E.IntImm | E.FloatImm) else None

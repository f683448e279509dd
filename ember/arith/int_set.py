"""Integer sets: symbolic intervals ``[min_value, max_value]`` and their evaluation.

``IntSet`` is a closed interval whose ends are PrimExprs (possibly symbolic, e.g.
``[3, n*4 - 1]``); an open end is the marker ``neg_inf()`` / ``pos_inf()``.
``eval_set(expr, dom_map)`` bounds an expression when each variable of ``dom_map``
ranges over its set (or ``Range``) — interval arithmetic with every end simplified by
an ``Analyzer``.  This is how lowering computes the region of a buffer that a loop
nest touches.
"""

from __future__ import annotations

from dataclasses import dataclass

from ember.ir import (
    Add, Broadcast, Cast, Div, FloorDiv, FloorMod, IntImm, Let, Max, Min, Mod, Mul, PrimExpr, Ramp,
    Range, Select, Sub, Var, as_expr,
)

__all__ = [
    "IntSet", "IntervalSet", "eval_set", "pos_inf", "neg_inf", "is_pos_inf", "is_neg_inf",
    "union", "intersect",
]

_POS_INF = Var("pos_inf", "int64")
_NEG_INF = Var("neg_inf", "int64")


def pos_inf() -> Var:
    """The marker of an interval open above."""
    return _POS_INF


def neg_inf() -> Var:
    """The marker of an interval open below."""
    return _NEG_INF


def is_pos_inf(e) -> bool:
    return e is _POS_INF


def is_neg_inf(e) -> bool:
    return e is _NEG_INF


def _infinite(e) -> bool:
    return e is _POS_INF or e is _NEG_INF


@dataclass(frozen=True, eq=False)
class IntSet:
    """The integers in ``[min_value, max_value]`` (ends are PrimExprs or infinity markers)."""

    min_value: PrimExpr
    max_value: PrimExpr

    def __post_init__(self):
        for name in ("min_value", "max_value"):
            value = getattr(self, name)
            if not isinstance(value, PrimExpr):
                object.__setattr__(self, name, as_expr(value))

    # -- constructors ---------------------------------------------------------------
    @staticmethod
    def interval(min_value, max_value) -> IntSet:
        return IntSet(as_expr(min_value), as_expr(max_value))

    @staticmethod
    def single_point(point) -> IntSet:
        point = as_expr(point)
        return IntSet(point, point)

    @staticmethod
    def vector(vec) -> IntSet:
        """The values of the lanes of ``vec``: a Ramp's first to last element (a scalable
        Ramp is open at its far end), a Broadcast's value, a scalar itself."""
        vec = as_expr(vec)
        if type(vec) is Ramp:
            if not isinstance(vec.lanes, int):
                stride = vec.stride
                up = type(stride) is IntImm and stride.value >= 0
                return IntSet(vec.base, _POS_INF) if up else IntSet(_NEG_INF, vec.base)
            from .analyzer import Analyzer

            last = Analyzer().simplify(vec.base + vec.stride * (vec.lanes - 1))
            ends = (vec.base, last)
            if type(vec.stride) is IntImm and vec.stride.value < 0:
                ends = (last, vec.base)
            return IntSet(*ends)
        if type(vec) is Broadcast:
            return IntSet.single_point(vec.value)
        return IntSet.single_point(vec)

    @staticmethod
    def everything() -> IntSet:
        return IntSet(_NEG_INF, _POS_INF)

    @staticmethod
    def nothing() -> IntSet:
        return IntSet(_POS_INF, _NEG_INF)

    @staticmethod
    def from_range(rng: Range, analyzer=None) -> IntSet:
        ana = analyzer if analyzer is not None else _analyzer()
        return IntSet(rng.min, ana.simplify(rng.min + rng.extent - 1))

    # -- queries ----------------------------------------------------------------------
    def is_everything(self) -> bool:
        return self.min_value is _NEG_INF and self.max_value is _POS_INF

    def is_nothing(self) -> bool:
        if self.min_value is _POS_INF or self.max_value is _NEG_INF:
            return True
        a, b = self.min_value, self.max_value
        return type(a) is IntImm and type(b) is IntImm and a.value > b.value

    def is_single_point(self) -> bool:
        a, b = self.min_value, self.max_value
        if _infinite(a) or _infinite(b):
            return False
        if a is b:
            return True
        from ember.ir import structural_equal

        return structural_equal(a, b, map_free_vars=False)

    def point_value(self) -> PrimExpr:
        if not self.is_single_point():
            raise ValueError(f"point_value: the set {self} is not a single point")
        return self.min_value

    def has_lower_bound(self) -> bool:
        return not _infinite(self.min_value)

    def has_upper_bound(self) -> bool:
        return not _infinite(self.max_value)

    def union(self, other: IntSet, analyzer=None) -> IntSet:
        return union([self, other], analyzer)

    def intersect(self, other: IntSet, analyzer=None) -> IntSet:
        return intersect([self, other], analyzer)

    def cover_range(self, none_empty_range: Range, analyzer=None) -> Range:
        """The Range ``[min, max]``; infinite ends are taken from ``none_empty_range``."""
        ana = analyzer if analyzer is not None else _analyzer()
        lo = self.min_value if self.has_lower_bound() else none_empty_range.min
        hi = (self.max_value if self.has_upper_bound()
              else ana.simplify(none_empty_range.min + none_empty_range.extent - 1))
        return Range(lo, ana.simplify(hi - lo + 1))

    def __repr__(self) -> str:
        def end(e):
            return "-inf" if e is _NEG_INF else "+inf" if e is _POS_INF else repr(e)

        return f"IntSet[{end(self.min_value)}, {end(self.max_value)}]"


IntervalSet = IntSet


def _analyzer():
    from .analyzer import Analyzer

    return Analyzer()


# -- set algebra ---------------------------------------------------------------------

def union(sets, analyzer=None) -> IntSet:
    """The smallest interval holding every set."""
    ana = analyzer if analyzer is not None else _analyzer()
    sets = [s for s in sets if not s.is_nothing()]
    if not sets:
        return IntSet.nothing()
    lo, hi = sets[0].min_value, sets[0].max_value
    for s in sets[1:]:
        lo = _combine(Min, lo, s.min_value, _NEG_INF, ana)
        hi = _combine(Max, hi, s.max_value, _POS_INF, ana)
    return IntSet(lo, hi)


def intersect(sets, analyzer=None) -> IntSet:
    """The interval common to every set."""
    ana = analyzer if analyzer is not None else _analyzer()
    lo, hi = _NEG_INF, _POS_INF
    for s in sets:
        lo = _tighten(Max, lo, s.min_value, _NEG_INF, ana)
        hi = _tighten(Min, hi, s.max_value, _POS_INF, ana)
    return IntSet(lo, hi)


def _combine(op, a, b, absorbing, ana):
    """op(a, b) where ``absorbing`` (an infinity) wins."""
    if a is absorbing or b is absorbing:
        return absorbing
    if _infinite(a):
        return b
    if _infinite(b):
        return a
    return ana.simplify(op(*_same_dtype(a, b)))


def _tighten(op, a, b, neutral, ana):
    if a is neutral:
        return b
    if b is neutral:
        return a
    if _infinite(a) or _infinite(b):
        return a if not _infinite(a) else b
    return ana.simplify(op(*_same_dtype(a, b)))


def _same_dtype(a, b):
    from ember.ir import promote

    return promote(a, b)


# -- evaluation ----------------------------------------------------------------------

def eval_set(expr, dom_map: dict, analyzer=None):
    """The IntSet of ``expr`` (or a list of them) over ``dom_map`` (Var → IntSet or Range)."""
    ana = analyzer if analyzer is not None else _analyzer()
    sets = {}
    for var, dom in dom_map.items():
        if not isinstance(var, Var):
            raise TypeError(f"eval_set: dom_map keys must be Vars, got {type(var).__name__}: {var!r}")
        if isinstance(dom, Range):
            dom = IntSet.from_range(dom, ana)
        elif not isinstance(dom, IntSet):
            raise TypeError(
                f"eval_set: dom_map[{var.name}] must be an IntSet or a Range, got {type(dom).__name__}"
            )
        sets[var] = dom
    ev = _Evaluator(sets, ana)
    if isinstance(expr, list | tuple):
        return [ev.eval(as_expr(e)) for e in expr]
    if isinstance(expr, Range):
        lo, hi = ev.eval(expr.min), ev.eval(ana.simplify(expr.min + expr.extent - 1))
        return IntSet(lo.min_value, hi.max_value)
    return ev.eval(as_expr(expr))


class _Evaluator:
    def __init__(self, dom: dict, ana):
        self.dom = dict(dom)
        self.ana = ana
        self.uses: dict[int, bool] = {}

    def _uses_dom(self, e) -> bool:
        hit = self.uses.get(id(e))
        if hit is not None:
            return hit
        from ember.ir import Node, fields_of

        if isinstance(e, Var):
            r = e in self.dom
        elif isinstance(e, Node):
            r = False
            for name in fields_of(type(e)):
                v = getattr(e, name)
                items = v if isinstance(v, tuple) else (v,)
                if any(isinstance(x, Node) and self._uses_dom(x) for x in items):
                    r = True
                    break
        else:
            r = False
        self.uses[id(e)] = r
        return r

    def eval(self, e: PrimExpr) -> IntSet:
        if not self._uses_dom(e):
            return IntSet.single_point(e)
        rule = _EVAL.get(type(e))
        if rule is None:
            if isinstance(e, Var):
                return self.dom[e]
            return IntSet.everything()
        return rule(self, e)

    def simp(self, e):
        return e if _infinite(e) else self.ana.simplify(e)

    def sign(self, e) -> int:
        lo, hi = self.ana.const_int_bound(e).min_value, self.ana.const_int_bound(e).max_value
        return 1 if lo >= 0 else -1 if hi <= 0 else 0


def _add(ev, e):
    a, b = ev.eval(e.a), ev.eval(e.b)
    return IntSet(_arith(Add, a.min_value, b.min_value, ev), _arith(Add, a.max_value, b.max_value, ev))


def _sub(ev, e):
    a, b = ev.eval(e.a), ev.eval(e.b)
    return IntSet(_sub_end(a.min_value, b.max_value, ev), _sub_end(a.max_value, b.min_value, ev))


def _flip(e):
    return _NEG_INF if e is _POS_INF else _POS_INF if e is _NEG_INF else e


def _sub_end(x, y, ev):
    if _infinite(x):
        return x
    if _infinite(y):
        return _flip(y)
    return ev.simp(Sub(*_same_dtype(x, y)))


def _arith(op, a, b, ev):
    """a op b where an infinite operand gives an infinite result."""
    if _infinite(a):
        return a
    if _infinite(b):
        return b
    return ev.simp(op(*_same_dtype(a, b)))


def _scale(ev, s: IntSet, k: PrimExpr, op) -> IntSet:
    """``s op k`` for a point k of known sign (op is Mul, FloorDiv or Div)."""
    sign = ev.sign(k)
    if sign == 0:
        return IntSet.everything()

    def end(x):
        if _infinite(x):
            return x if sign > 0 else _flip(x)
        return ev.simp(op(*_same_dtype(x, k)))

    lo, hi = end(s.min_value), end(s.max_value)
    return IntSet(lo, hi) if sign > 0 else IntSet(hi, lo)


def _mul(ev, e):
    a, b = ev.eval(e.a), ev.eval(e.b)
    if b.is_single_point():
        return _scale(ev, a, b.min_value, Mul)
    if a.is_single_point():
        return _scale(ev, b, a.min_value, Mul)
    ends = (a.min_value, a.max_value, b.min_value, b.max_value)
    if all(type(x) is IntImm for x in ends):
        vals = [x.value * y.value for x in ends[:2] for y in ends[2:]]
        return IntSet(IntImm(e.dtype, min(vals)), IntImm(e.dtype, max(vals)))
    return IntSet.everything()


def _div(ev, e):
    a, b = ev.eval(e.a), ev.eval(e.b)
    if not b.is_single_point():
        return IntSet.everything()
    return _scale(ev, a, b.min_value, type(e))


def _mod(ev, e):
    a, b = ev.eval(e.a), ev.eval(e.b)
    if not b.is_single_point() or ev.sign(b.min_value) <= 0:
        return IntSet.everything()
    k = b.min_value
    if type(k) is IntImm and k.value == 0:
        return IntSet.everything()
    truncating = type(e) is Mod
    if a.has_lower_bound() and a.has_upper_bound():
        nonneg = ev.ana.const_int_bound(a.min_value).min_value >= 0
        if not truncating or nonneg:
            q_lo = ev.ana.simplify(FloorDiv(*_same_dtype(a.min_value, k)))
            q_hi = ev.ana.simplify(FloorDiv(*_same_dtype(a.max_value, k)))
            if ev.ana.can_prove_equal(q_lo, q_hi):
                return IntSet(ev.simp(type(e)(*_same_dtype(a.min_value, k))),
                              ev.simp(type(e)(*_same_dtype(a.max_value, k))))
    zero = IntImm(k.dtype, 0)
    top = ev.simp(k - 1)
    if truncating and not (a.has_lower_bound() and ev.ana.const_int_bound(a.min_value).min_value >= 0):
        return IntSet(ev.simp(1 - k), top)
    return IntSet(zero, top)


def _minmax(ev, e):
    a, b = ev.eval(e.a), ev.eval(e.b)
    op = type(e)
    lo = _minmax_end(op, a.min_value, b.min_value, ev)
    hi = _minmax_end(op, a.max_value, b.max_value, ev)
    return IntSet(lo, hi)


def _minmax_end(op, a, b, ev):
    if op is Min:
        if a is _NEG_INF or b is _NEG_INF:
            return _NEG_INF
        if a is _POS_INF:
            return b
        if b is _POS_INF:
            return a
    else:
        if a is _POS_INF or b is _POS_INF:
            return _POS_INF
        if a is _NEG_INF:
            return b
        if b is _NEG_INF:
            return a
    return ev.simp(op(*_same_dtype(a, b)))


def _select(ev, e):
    return union([ev.eval(e.true_value), ev.eval(e.false_value)], ev.ana)


def _cast(ev, e):
    if not (e.value.dtype.is_integer and e.dtype.is_integer):
        return IntSet.everything()
    a = ev.eval(e.value)
    if not (a.has_lower_bound() and a.has_upper_bound()):
        return IntSet.everything()
    from .const_int_bound import dtype_range

    lo_t, hi_t = dtype_range(e.dtype)
    lo = ev.ana.const_int_bound(a.min_value).min_value
    hi = ev.ana.const_int_bound(a.max_value).max_value
    if lo < lo_t or hi > hi_t:
        return IntSet.everything()  # a narrowing cast may wrap around
    return IntSet(ev.simp(Cast(e.dtype, a.min_value)), ev.simp(Cast(e.dtype, a.max_value)))


def _let(ev, e):
    ev.dom[e.var] = ev.eval(e.value)
    ev.uses.clear()
    return ev.eval(e.body)


def _ramp(ev, e):
    last = IntImm(e.stride.dtype, e.lanes - 1)
    offsets = _scale(ev, IntSet(IntImm(e.stride.dtype, 0), last), e.stride, Mul) \
        if not ev._uses_dom(e.stride) else IntSet.everything()
    base = ev.eval(e.base)
    return IntSet(_arith(Add, base.min_value, offsets.min_value, ev),
                  _arith(Add, base.max_value, offsets.max_value, ev))


def _broadcast(ev, e):
    return ev.eval(e.value)


_EVAL = {
    Add: _add,
    Sub: _sub,
    Mul: _mul,
    FloorDiv: _div,
    Div: _div,
    FloorMod: _mod,
    Mod: _mod,
    Min: _minmax,
    Max: _minmax,
    Select: _select,
    Cast: _cast,
    Let: _let,
    Ramp: _ramp,
    Broadcast: _broadcast,
}


def union_lower_bound(sets) -> IntSet:
    """A set inside the union of ``sets`` (their hull when they leave no gap)."""
    from .region_bound import union_lower_bound as impl

    return impl(sets)

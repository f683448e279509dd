"""The predicate of ``detect_iter_map``: bounds on iterators and on fused sums.

Each conjunct ``lo <= sum < hi`` of the predicate narrows the rewriter's view of the
iterators: a bound on a whole input iterator replaces its mark by a shorter one, a bound
on a sum of several splits becomes a constrained mark that ``IterMapRewriter.fuse``
uses when an index contains that sum.  A bound sum that no index uses whole is an error.
"""

from __future__ import annotations

from ember.ir import GE, GT, LE, LT, And, IntImm, PrimExpr

from .iter_map_nodes import IterMark, IterSumExpr
from .iter_map_rewrite import DetectionFailed, IterMapRewriter, is_const, show_sum

__all__ = ["apply_predicate", "check_constraints_used"]


def apply_predicate(rw: IterMapRewriter, pred: PrimExpr) -> None:
    """Bound iterators and fused sums by the conjuncts of ``pred`` (``lo <= sum < hi``),
    smaller sums first so that larger ones can use them."""
    bounds: dict[tuple, list] = {}  # key -> [args, lo, hi] on the value of the args
    stack = [pred]
    while stack:
        c = stack.pop()
        if type(c) is IntImm and c.value:
            continue
        if type(c) is And:
            stack += [c.a, c.b]
            continue
        cls = type(c)
        if not rw.uses_iters(c):
            continue  # says nothing about the iterators
        if cls in (LT, LE, GT, GE):
            a_it, b_it = rw.uses_iters(c.a), rw.uses_iters(c.b)
            if a_it != b_it:
                side, other = (c.a, c.b) if a_it else (c.b, c.a)
                upper = (cls in (LT, LE)) == a_it  # the iterator side is bounded above
                strict = cls in (LT, GT)
                s = rw.rewrite(side)
                if s.args:
                    if upper:
                        lo, hi = None, other if strict else other + 1
                    else:
                        lo, hi = (other + 1 if strict else other), None
                    shift = lambda e, base=s.base: None if e is None else rw.ana.simplify(e - base)  # noqa: E731
                    key = frozenset(rw.sum_key(s.args))
                    entry = bounds.setdefault(key, [s.args, None, None, c])
                    entry[1] = _tighter(entry[1], shift(lo), max)
                    entry[2] = _tighter(entry[2], shift(hi), min)
                    continue
        raise DetectionFailed(f"unsupported predicate {c!r}: expected iterator sums compared with a bound")
    for args, lo, hi, cond in sorted(bounds.values(), key=lambda e: len(e[0])):
        _constrain(rw, IterSumExpr(tuple(args), IntImm(args[0].scale.dtype, 0)), lo, hi, cond)
    rw.used_constraints.clear()


def check_constraints_used(rw: IterMapRewriter) -> None:
    """A bounded sum must appear in the indices: bounding iterators that the indices
    use separately would make the map neither surjective nor expressible."""
    for _, mark, _ in rw.constraints:
        if id(mark) not in rw.used_constraints:
            bounded = IterSumExpr(mark.source.args, IntImm(mark.extent.dtype, 0))
            raise DetectionFailed(f"the predicate bounds the sum {show_sum(bounded)}, which no index uses whole")


def _constrain(rw: IterMapRewriter, s: IterSumExpr, lo, hi, cond) -> None:
    """Restrict the value of ``s`` (base 0) to ``[lo, hi)`` (None: unbounded)."""
    if len(s.args) == 1:
        a = s.args[0]
        var = next((v for v, m in rw.input_marks.items() if m is a.source), None)
        if var is not None and is_const(a.lower_factor, 1) and is_const(a.scale, 1) \
                and rw.eq(a.extent, a.source.extent):
            base = rw.var_map[var].base
            low, high = _clip(rw, lo, hi, base, a.source.extent)
            source = a.source.source if is_const(low, 0) else rw.ana.simplify(a.source.source - low)
            rw.set_mark(var, IterMark(source, rw.ana.simplify(high - low)), rw.ana.simplify(base + low))
            return
        raise DetectionFailed(f"unsupported predicate {cond!r}: it bounds a part of an iterator")
    fused = rw.fuse(s)
    split = fused.args[0]
    if len(fused.args) != 1 or not is_const(split.scale, 1) or not isinstance(split.source.source, IterSumExpr):
        raise DetectionFailed(f"unsupported predicate {cond!r}: the bounded sum is scaled")
    old = split.source
    low, high = _clip(rw, lo, hi, fused.base, old.extent)
    source = old.source if is_const(low, 0) else IterSumExpr(old.source.args, rw.ana.simplify(old.source.base - low))
    mark = IterMark(source, rw.ana.simplify(high - low))
    rw.constraints.append((old.source.args, mark, low))


def _clip(rw: IterMapRewriter, lo, hi, base, extent):
    """``[lo, hi)`` on a value ``mark + base`` as a range of the mark within ``[0, extent)``."""
    zero = IntImm(extent.dtype, 0)
    low = zero if lo is None else _tighter(zero, rw.ana.simplify(lo - base), max)
    high = extent if hi is None else _tighter(extent, rw.ana.simplify(hi - base), min)
    return low, high


def _tighter(old, new, pick):
    """The tighter of two bounds (``pick`` is max for lower bounds, min for upper ones);
    when one is symbolic the newer one (the predicate's) wins."""
    if old is None:
        return new
    if new is None:
        return old
    if type(old) is IntImm and type(new) is IntImm:
        return IntImm(old.dtype, pick(old.value, new.value))
    return new


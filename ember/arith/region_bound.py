"""Bounds of a buffer region touched by a loop nest (TVM's ``estimate_region_*_bound``).

``region`` is a list of ``Range``s whose mins depend on loop variables (``var_dom``:
Var → Range), possibly restricted by ``predicate``.  The *lower* bound is the set of
indices that is certainly touched: it exists only when the mins are independent affine
maps of the loops (``detect_iter_map``) and each dimension moves by steps no wider than
its extent, so the union has no gaps — ``[i*4, i*4 + 8)`` over ``i < 64`` covers
``[0, 260)``; ``[i*4, i*4 + 2)`` does not.  The *upper* bound holds every index that
may be touched: the lower bound when it exists, else per dimension the affine bound of
that dimension alone, else interval evaluation.
"""

from __future__ import annotations

from ember.ir import IntImm, Max, PrimExpr, as_expr

from .int_set import IntSet, eval_set, is_neg_inf, is_pos_inf
from .iter_map import detect_iter_map

__all__ = ["estimate_region_lower_bound", "estimate_region_upper_bound",
           "estimate_region_strict_bound", "union_lower_bound"]


def _affine_sets(region, var_dom, predicate, ana):
    mins = [as_expr(r.min) for r in region]
    res = detect_iter_map(mins, var_dom, predicate if predicate is not None else True, "surjective")
    if not res.indices:
        return None
    out = []
    for rng, index in zip(region, res.indices):
        ext = as_expr(rng.extent)
        last = ana.simplify(ext - 1)
        if not index.args:
            lo, hi = index.base, index.base + last
        elif len(index.args) == 1:
            split = index.args[0]
            scale = ana.simplify(split.scale)
            if type(scale) is not IntImm:
                return None
            if not ana.can_prove(IntImm(ext.dtype, abs(scale.value)) <= ext):
                return None  # steps wider than the extent leave gaps
            span = ana.simplify(split.scale * (split.extent - 1))
            if scale.value >= 0:
                lo, hi = index.base, index.base + span + last
            else:
                lo, hi = index.base + span, index.base + last
        else:
            return None
        out.append(IntSet(ana.simplify(lo), ana.simplify(hi)))
    return out


def estimate_region_lower_bound(region, var_dom, predicate=None):
    """The indices certainly touched (one IntSet per dimension), or None when unknown."""
    from .analyzer import Analyzer

    return _affine_sets(list(region), dict(var_dom), predicate, Analyzer())


def estimate_region_strict_bound(region, var_dom, predicate=None):
    """The exact touched set when it is known (the affine case), else None."""
    return estimate_region_lower_bound(region, var_dom, predicate)


def estimate_region_upper_bound(region, var_dom, predicate=None):
    """Every index that may be touched (one IntSet per dimension)."""
    from .analyzer import Analyzer

    ana = Analyzer()
    region = list(region)
    exact = _affine_sets(region, dict(var_dom), predicate, ana)
    if exact is not None:
        return exact
    out = []
    for rng in region:  # each dimension on its own: indices may share loops (a diagonal)
        alone = _affine_sets([rng], dict(var_dom), predicate, ana)
        if alone is not None:
            out.append(alone[0])
            continue
        lo = eval_set(as_expr(rng.min), var_dom, ana).min_value
        hi = eval_set(ana.simplify(as_expr(rng.min) + rng.extent - 1), var_dom, ana).max_value
        out.append(IntSet(lo, hi))
    return out


def union_lower_bound(sets) -> IntSet:
    """A set contained in the union of ``sets``: their hull when they leave no gap between
    them (checked for constant or infinite ends), else the largest single set."""
    from .analyzer import Analyzer

    ana = Analyzer()
    sets = [s for s in sets if not s.is_nothing()]
    if not sets:
        return IntSet.nothing()
    ordered = sorted(sets, key=_sort_key)
    lo, hi = ordered[0].min_value, ordered[0].max_value
    for s in ordered[1:]:
        if not _touches(hi, s.min_value, ana):
            return ordered[0]
        hi = _larger(hi, s.max_value, ana)
    return IntSet(lo, hi)


def _sort_key(s: IntSet):
    m = s.min_value
    if is_neg_inf(m):
        return -float("inf")
    return m.value if type(m) is IntImm else float("inf")


def _touches(hi: PrimExpr, lo: PrimExpr, ana) -> bool:
    if is_pos_inf(hi) or is_neg_inf(lo):
        return True
    if is_neg_inf(hi) or is_pos_inf(lo):
        return False
    return ana.can_prove(lo <= hi + 1)


def _larger(a: PrimExpr, b: PrimExpr, ana) -> PrimExpr:
    if is_pos_inf(a) or is_pos_inf(b):
        return a if is_pos_inf(a) else b
    return ana.simplify(Max(a, b))




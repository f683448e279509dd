"""``subspace_divide``: split affine bindings into an outer and an inner part.

Given bindings over ``input_iters`` and a subset ``sub_iters`` (the inner loops of a
``blockize``), each binding is written ``outer * E + inner`` where ``inner`` ranges
over ``[0, E)`` using only ``sub_iters`` and ``outer`` uses only the other iterators.
The result follows TVM: one ``[outer_mark, inner_mark]`` pair per binding (IterMarks
whose ``source`` is an IterSumExpr and whose ``extent`` is the part's extent), then
``[outer_pred_mark, inner_pred_mark]`` whose extents are the two parts of the
predicate.  An empty list means the bindings cannot be divided.
"""

from __future__ import annotations

from ember.ir import IntImm, Node, PrimExpr, Var, as_expr, fields_of

from .analyzer import Analyzer
from .iter_map import detect_iter_map
from .iter_map_nodes import IterMark, IterSplitExpr, IterSumExpr

__all__ = ["subspace_divide"]


class _NoDivision(Exception):
    pass


def subspace_divide(bindings, input_iters: dict, sub_iters, predicate=True,
                    check_level="surjective", simplify_trivial_iterators: bool = True) -> list:
    """Divide ``bindings`` into (outer, inner) parts by the iterators ``sub_iters``."""
    result = detect_iter_map(bindings, input_iters, predicate, check_level, simplify_trivial_iterators)
    if result.errors:
        return []
    sub = {id(v) for v in sub_iters}
    ana = Analyzer()
    try:
        pairs = [_divide(s, sub, ana) for s in result.indices]
        preds = _divide_predicate(as_expr(predicate), sub)
    except _NoDivision:
        return []
    return pairs + [preds]


def _vars_of(e, out: set) -> set:
    if isinstance(e, Var):
        out.add(id(e))
    elif isinstance(e, IterMark):
        _vars_of(e.source, out)
    elif isinstance(e, Node):
        for name in fields_of(type(e)):
            v = getattr(e, name)
            for x in v if isinstance(v, tuple) else (v,):
                if isinstance(x, Node):
                    _vars_of(x, out)
    return out


def _side(split: IterSplitExpr, sub: set) -> str:
    used = _vars_of(split.source, set())
    inner = used & sub
    if not inner:
        return "outer"
    if inner == used:
        return "inner"
    return "mixed"


def _mark(args: tuple, base: PrimExpr, extent: PrimExpr) -> IterMark:
    return IterMark(IterSumExpr(args, base), extent)


def _divide(s: IterSumExpr, sub: set, ana: Analyzer) -> list:
    dtype = s.base.dtype
    one, zero = IntImm(dtype, 1), IntImm(dtype, 0)
    if not s.args:
        return [_mark((), s.base, one), _mark((), zero, one)]
    (split,) = s.args
    side = _side(split, sub)
    if side == "outer":
        return [_mark((split,), s.base, split.extent), _mark((), zero, one)]
    if side == "inner":
        return [_mark((), s.base, one), _mark((split,), zero, split.extent)]
    mark = split.source
    whole = (isinstance(mark.source, IterSumExpr) and _is(split.lower_factor, 1) and _is(split.scale, 1)
             and ana.can_prove_equal(split.extent, mark.extent))
    if not whole:
        raise _NoDivision
    chain = mark.source.args  # from the highest scale to the lowest, unit iterators last
    units = [a for a in chain if _is(a.extent, 1)]  # always 0: they go with their side
    chain = ([a for a in units if _side(a, sub) != "inner"] + [a for a in chain if not _is(a.extent, 1)]
             + [a for a in units if _side(a, sub) == "inner"])
    sides = [_side(a, sub) for a in chain]
    cut = len(chain)
    while cut > 0 and sides[cut - 1] == "inner":
        cut -= 1
    if "inner" in sides[:cut] or "mixed" in sides:
        raise _NoDivision  # inner iterators must be the low-order digits
    inner_args, outer_args = chain[cut:], chain[:cut]
    extent = one
    for a in inner_args:
        extent = ana.simplify(extent * a.extent)
    outer_scaled = []
    for a in outer_args:
        scale = ana.simplify(a.scale // extent)
        if not ana.can_prove_equal(scale * extent, a.scale):
            raise _NoDivision
        outer_scaled.append(IterSplitExpr(a.source, a.lower_factor, a.extent, scale))
    base = ana.simplify(s.base // extent)
    if not ana.can_prove_equal(base * extent, s.base):
        raise _NoDivision
    outer_extent = ana.simplify(mark.extent // extent)
    return [_mark(tuple(outer_scaled), base, outer_extent), _mark(tuple(inner_args), zero, extent)]


def _is(e, value: int) -> bool:
    return type(e) is IntImm and e.value == value


def _divide_predicate(pred: PrimExpr, sub: set) -> list:
    true = IntImm(pred.dtype, 1)
    empty = IterSumExpr((), IntImm(pred.dtype, 0))
    if type(pred) is IntImm:
        return [IterMark(empty, pred), IterMark(empty, true)]
    used = _vars_of(pred, set())
    if not used & sub:
        return [IterMark(empty, pred), IterMark(empty, true)]
    if used <= sub:
        return [IterMark(empty, true), IterMark(empty, pred)]
    raise _NoDivision

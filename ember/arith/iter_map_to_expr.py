"""``normalize_iter_map_to_expr``: an iterator-map expression back to a plain PrimExpr.

A split is ``(source // lower_factor) % extent * scale``, leaving out the division by 1,
the modulo when the split reaches the top of its mark, and the multiplication by 1.
"""

from __future__ import annotations

from ember.ir import Add, FloorDiv, FloorMod, IntImm, Mul, PrimExpr, promote

from .analyzer import Analyzer
from .iter_map_nodes import IterMark, IterSplitExpr, IterSumExpr

__all__ = ["normalize_iter_map_to_expr"]


def normalize_iter_map_to_expr(expr) -> PrimExpr:
    """The plain PrimExpr of an IterSumExpr / IterSplitExpr (other expressions unchanged)."""
    if isinstance(expr, IterSumExpr):
        out = None
        for a in expr.args:
            t = normalize_iter_map_to_expr(a)
            out = t if out is None else Add(*promote(out, t))
        if out is None:
            return expr.base
        if _is_const(expr.base, 0):
            return out
        return Add(*promote(out, expr.base))
    if isinstance(expr, IterSplitExpr):
        mark = expr.source
        value = normalize_iter_map_to_expr(mark.source)
        if not _is_const(expr.lower_factor, 1):
            value = FloorDiv(*promote(value, expr.lower_factor))
        covers_top = _covers_top(expr, mark)
        if not covers_top:
            value = FloorMod(*promote(value, expr.extent))
        if not _is_const(expr.scale, 1):
            value = Mul(*promote(value, expr.scale))
        return value
    return expr


def _covers_top(split: IterSplitExpr, mark: IterMark) -> bool:
    lf, ext, total = split.lower_factor, split.extent, mark.extent
    if type(lf) is IntImm and type(ext) is IntImm and type(total) is IntImm:
        return lf.value * ext.value == total.value
    return Analyzer().can_prove_equal(lf * ext, total)


def _is_const(e, value: int) -> bool:
    return type(e) is IntImm and e.value == value

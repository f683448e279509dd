"""``normalize_to_iter_sum``: an index as a sum of iterator splits plus a base, unfused.

Unlike ``detect_iter_map`` nothing is fused or checked: each additive term of the index
that is affine in the iterators becomes splits (``4 * (x // 2)`` is the split ``x // 2``
with scale 4), the other terms go to the base (``max(z, a)`` stays there), splits of one
iterator that are adjacent digits merge back (``4 * (x // 4) + x % 4`` is ``x``), and the
splits are ordered by scale, largest first: more symbolic factors first, then the
larger constant factor (``a*n*4``, ``n*4``, ``6``, ``1``).
"""

from __future__ import annotations

from ember.ir import Add, IntImm, Mul, PrimExpr, Sub, as_expr, promote

from .iter_map_rewrite import DetectionFailed, IterMapRewriter
from .iter_map_nodes import IterSplitExpr, IterSumExpr

__all__ = ["normalize_to_iter_sum"]


def normalize_to_iter_sum(index, input_iters: dict) -> IterSumExpr:
    """``index`` over ``input_iters`` (Var → Range) as an ``IterSumExpr``."""
    rw = IterMapRewriter(dict(input_iters), True)
    rw.lenient = True
    index = as_expr(index)
    args: list[IterSplitExpr] = []
    base: PrimExpr = IntImm(index.dtype, 0)
    for term, sign in _terms(index):
        try:
            s = rw.rewrite(rw.ana.simplify(term))
        except DetectionFailed:
            base = base + term if sign > 0 else base - term
            continue
        if sign < 0:
            s = rw.scale(s, IntImm(index.dtype, -1))
        args += s.args
        base = base + s.base
    args = list(rw.merge(tuple(args)))
    args = _merge_digits(rw, args)
    args.sort(key=_order)
    return IterSumExpr(tuple(args), rw.ana.simplify(base))


def _terms(e: PrimExpr, sign: int = 1):
    """The additive terms of ``e`` with their signs."""
    if type(e) is Add:
        yield from _terms(e.a, sign)
        yield from _terms(e.b, sign)
    elif type(e) is Sub:
        yield from _terms(e.a, sign)
        yield from _terms(e.b, -sign)
    else:
        yield e, sign


def _merge_digits(rw, args: list) -> list:
    """``s_lo + s_hi`` where ``s_hi`` is the next digit of the same mark (its lower factor
    and scale continue ``s_lo``'s) becomes one split."""
    changed = True
    while changed:
        changed = False
        for lo in args:
            for hi in args:
                if hi is lo or hi.source is not lo.source:
                    continue
                reach = rw.ana.simplify(Mul(*promote(lo.lower_factor, lo.extent)))
                step = rw.ana.simplify(Mul(*promote(lo.scale, lo.extent)))
                if rw.eq(hi.lower_factor, reach) and rw.eq(hi.scale, step):
                    ext = rw.ana.simplify(Mul(*promote(lo.extent, hi.extent)))
                    merged = IterSplitExpr(lo.source, lo.lower_factor, ext, lo.scale)
                    args = [a for a in args if a is not lo and a is not hi] + [merged]
                    changed = True
                    break
            if changed:
                break
    return args


def _order(split: IterSplitExpr):
    const, symbolic = 1, 0
    stack = [split.scale]
    while stack:
        e = stack.pop()
        if type(e) is Mul:
            stack += [e.a, e.b]
        elif type(e) is IntImm:
            const *= e.value
        else:
            symbolic += 1
    return (-symbolic, -const)

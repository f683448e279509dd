"""Which iterations of a block cover a required buffer region (for compute_at and
reverse_compute_at when the block does not index the buffer with plain iterators).

A block accesses a buffer at a region whose bounds are functions of its iterators
(``Y[9 - vi, 9 - vj]``, ``temp[v // 16, v % 16]``, a blockized block's
``B[vio * 16 : vio * 16 + 16, …]``).  Given the region that must be covered, in terms
of the loops outside the new location (inclusive (lo, hi) per dimension), ``solve``
returns for each block iterator it constrains the smallest range of values that covers
it.  Two kinds of dimensions are understood:

* a single point ``Σ split * scale + base`` that ``ember.arith.detect_iter_map`` reads as
  one split ``(v // lower_factor) % extent`` of one iterator: the splits of one
  iterator are stacked back (``v = min + Σ split_k · lower_factor_k``; a part no
  dimension mentions ranges over all of its values);
* a tile ``[a·v + b, a·v + b + e)`` with ``0 < e <= a`` (one iterator, constant
  ``a``, ``e``): ``v`` from ``(lo - b) // a`` to ``(hi - b) // a``.

An iterator constrained several times gets the union (the block must cover all of it);
a dimension that mentions no iterator constrains nothing.  ``solve`` raises
``Unsolvable`` for anything else (several iterators fused in one dimension, a
non-affine index), and the caller reports it.
"""

from __future__ import annotations

from ember.arith.iter_map import detect_iter_map, normalize_iter_map_to_expr
from ember.arith.iter_map_nodes import IterSplitExpr
from ember.ir import Range, Var, const

from . import _arith

__all__ = ["Unsolvable", "solve"]


class Unsolvable(ValueError):
    """The access pattern is outside what ``solve`` understands."""


def solve(block, region, required, bounds: dict) -> dict:
    """``{id(iter var): (lo, hi)}`` (inclusive PrimExprs over outer loops) covering
    ``required`` (a list of (lo, hi) per dimension) through ``region`` (a BufferRegion of
    ``block``, in its iterators)."""
    ivars = {id(iv.var): iv for iv in block.iter_vars}
    out: dict = {}
    points = []  # (dimension, index) of single-point dimensions that mention iterators
    for d, rng in enumerate(region.region):
        used = [v for v in _vars(rng.min) if id(v) in ivars]
        if not used:
            continue
        extent = _arith.as_int(_arith.simplify(rng.extent))
        if extent == 1:
            points.append((d, rng.min))
            continue
        _union(out, _solve_tile(rng.min, extent, used, required[d], ivars, bounds), bounds)
    if points:
        _solve_points(points, required, ivars, bounds, out)
    return out


def _vars(e) -> list:
    from ember.tir.functor import collect

    return collect(e, lambda n: isinstance(n, Var))


def _union(out: dict, found: dict, bounds: dict) -> None:
    for key, (lo, hi) in found.items():
        if key in out:
            old_lo, old_hi = out[key]
            lo, hi = _arith.min_expr(old_lo, lo, bounds), _arith.max_expr(old_hi, hi, bounds)
        out[key] = (lo, hi)


def _solve_tile(index, extent: int | None, used, need, ivars, bounds) -> dict:
    if extent is None or len({id(v) for v in used}) != 1:
        raise Unsolvable(f"the region start {index!r} spans several iterators or a symbolic extent")
    var = used[0]
    form = _arith.linear(index, bounds)
    coeff = next((c for atom, c in form.terms.values() if atom is var), None)
    if coeff is None or len(form.terms) != 1 or not 0 < extent <= coeff:
        raise Unsolvable(f"the region start {index!r} is not a tile of one iterator")
    base = form.const
    lo, hi = need
    return {id(var): (_arith.simplify((lo - base) // coeff, bounds),
                      _arith.simplify((hi - base) // coeff, bounds))}


def _solve_points(points, required, ivars, bounds, out) -> None:
    doms = {ivars[k].var: ivars[k].dom for k in ivars}
    result = detect_iter_map([index for _, index in points], doms, check_level="no_check")
    if result.errors or len(result.indices) != len(points):
        raise Unsolvable(f"the indices are not affine in the block iterators: {result.errors}")
    per_var: dict = {}  # id(var) -> (var, mark extent, [(lower_factor, extent, lo, hi)])
    for (d, _), total in zip(points, result.indices):
        if not total.args:
            continue
        if len(total.args) != 1 or not isinstance(total.args[0], IterSplitExpr):
            raise Unsolvable("one index mixes several iterators")
        split = total.args[0]
        source = split.source.source
        if not isinstance(source, Var) or id(source) not in ivars:
            source = normalize_iter_map_to_expr(source)  # a fused iterator: split back below
        scale, lf, ext = (_arith.as_int(x) for x in (split.scale, split.lower_factor, split.extent))
        if ext is None and lf == 1 and _arith.expr_key(split.extent) == _arith.expr_key(split.source.extent):
            ext = -1  # the whole of an iterator with a symbolic extent
        if scale is None or lf is None or ext is None or scale == 0:
            raise Unsolvable("a split with a symbolic factor")
        lo, hi = required[d]
        lo, hi = _arith.simplify(lo - total.base, bounds), _arith.simplify(hi - total.base, bounds)
        if scale < 0:
            lo, hi, scale = _arith.simplify(-hi, bounds), _arith.simplify(-lo, bounds), -scale
        if scale != 1:
            lo = _arith.simplify((lo + (scale - 1)) // scale, bounds)
            hi = _arith.simplify(hi // scale, bounds)
        key = id(source) if isinstance(source, Var) else _arith.expr_key(source)
        entry = per_var.setdefault(key, (source, split.source.extent, []))
        entry[2].append((lf, ext, lo, hi))
    for key, (var, mark_extent, splits) in per_var.items():
        if isinstance(var, Var):
            _union(out, {key: _stack(var, ivars[key].dom, mark_extent, splits, bounds)}, bounds)
            continue
        fused = Var("fused", var.dtype)
        lo, hi = _stack(fused, Range(const(0, fused.dtype), mark_extent), mark_extent, splits, bounds)
        _union(out, _unfuse(var, lo, hi, ivars, bounds), bounds)


def _unfuse(total, lo, hi, ivars, bounds) -> dict:
    """Ranges of the iterators of a fused index ``Σ c_k · v_k`` (mixed radix: each
    coefficient the product of the extents below it) whose value lies in [lo, hi]: the
    outermost from ``lo // c`` to ``hi // c``, an inner one over the part of its
    digit the range pins down (all of it unless the digits above are fixed)."""
    form = _arith.linear(total, bounds)
    terms = sorted(((c, atom) for atom, c in form.terms.values()), key=lambda t: -t[0])
    if form.const != 0 or not terms or any(not isinstance(a, Var) or id(a) not in ivars or c <= 0
                                           for c, a in terms):
        raise Unsolvable(f"the fused index {total!r} is not a sum of iterators")
    out, above = {}, None
    for coeff, var in terms:
        extent = _arith.as_int(ivars[id(var)].dom.extent)
        if above is not None and (extent is None or coeff * extent != above):
            raise Unsolvable(f"the fused index {total!r} is not a mixed-radix sum")
        if above is None:
            out[id(var)] = (_arith.simplify(lo // coeff, bounds), _arith.simplify(hi // coeff, bounds))
        elif _arith.is_const(_arith.simplify(hi // above - lo // above, bounds), 0):
            out[id(var)] = (_arith.simplify(lo % above // coeff, bounds),
                            _arith.simplify(hi % above // coeff, bounds))
        else:
            out[id(var)] = (const(0, var.dtype), const(extent - 1, var.dtype))
        above = coeff
    return out


def _stack(var, dom, mark_extent, splits, bounds):
    """The range of ``var`` whose splits lie in their (lo, hi): parts no split names
    range over all their values."""
    splits = sorted(splits, key=lambda s: s[0])
    total = _arith.as_int(mark_extent)
    lo = hi = const(0, var.dtype)
    at = 1  # the lower factor the next part starts at
    if len(splits) == 1 and splits[0][1] == -1:  # the iterator itself, of a symbolic extent
        return (_arith.simplify(dom.min + splits[0][2], bounds), _arith.simplify(dom.min + splits[0][3], bounds))
    for lf, ext, s_lo, s_hi in splits:
        if lf < at or ext < 0:
            raise Unsolvable(f"two indices split iterator {var.name!r} in overlapping parts")
        if lf > at:  # an unnamed part between: all of its values
            hi = hi + const(lf - 1, var.dtype) - const(at - 1, var.dtype)
        lo = lo + s_lo * lf if lf != 1 else lo + s_lo
        hi = hi + s_hi * lf if lf != 1 else hi + s_hi
        at = lf * ext
    if total is None or at < total:  # the top part is free
        if total is None:
            raise Unsolvable(f"iterator {var.name!r} has a symbolic extent")
        hi = hi + const(((total + at - 1) // at - 1) * at, var.dtype)
    start = dom.min
    return (_arith.simplify(start + lo, bounds), _arith.simplify(start + hi, bounds))

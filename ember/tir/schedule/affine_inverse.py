"""Invert a bijective affine load: express a block's iterators through the indices it
loads at (for reverse_compute_inline of a consumer that reads ``B[(i*32 + j) // 128,
(i*32 + j) % 128]`` or ``B[i * 16 + j, k]``).

``detect_iter_map`` reads the load indices as splits of the block's iterators (sums such
as ``i * 16 + j`` become one fused iterator).  If every index is exactly one split and
the splits of each iterator stack back to all of it, the iterator's value is
``Σ index_k · lower_factor_k`` (smallest factor first, as TVM writes it); a fused
iterator ``Σ c_k · v_k`` is then split back with ``//`` and ``%`` (no ``%`` on the
outermost, no ``//`` on the innermost).  The results are left unsimplified, in TVM's
form, so that printed IR matches TVM's.
"""

from __future__ import annotations

from ember.arith.iter_map import detect_iter_map, normalize_iter_map_to_expr
from ember.ir import FloorDiv, FloorMod, Var, const

from . import _arith

__all__ = ["invert_load"]


def invert_load(indices, iters: dict, targets) -> dict | None:
    """``{iterator: expression over targets}`` such that loading at ``indices`` (over
    ``iters``: Var -> Range) reads ``targets`` (one expression per index), or None when
    the load is not a bijective affine map of the iterators.  Iterators of extent one
    are left out (the caller puts their start)."""
    result = detect_iter_map(list(indices), iters, check_level="bijective")
    if result.errors or len(result.indices) != len(indices):
        return None
    marks: dict = {}  # key -> (mark, [(lower factor, extent, target)])
    for total, target in zip(result.indices, targets):
        if len(total.args) != 1 or not _arith.is_const(total.base, 0):
            return None
        split = total.args[0]
        if not _arith.is_const(split.scale, 1):
            return None
        lf, ext = _arith.as_int(split.lower_factor), _arith.as_int(split.extent)
        if lf is None or ext is None:
            return None
        source = split.source.source
        key = id(source) if isinstance(source, Var) else _arith.expr_key(normalize_iter_map_to_expr(source))
        marks.setdefault(key, (split.source, []))[1].append((lf, ext, target))
    out: dict = {}
    for mark, splits in marks.values():
        value = _stack(mark, sorted(splits, key=lambda s: s[0]))
        if value is None:
            return None
        source = mark.source
        if isinstance(source, Var):
            out[source] = value
            continue
        parts = _unfuse(normalize_iter_map_to_expr(source), value, iters)
        if parts is None:
            return None
        out.update(parts)
    return out


def _stack(mark, splits):
    at, value = 1, None
    for lf, ext, target in splits:
        if lf != at:
            return None
        term = target if lf == 1 else target * const(lf, target.dtype)
        value = term if value is None else value + term
        at = lf * ext
    return value if at == _arith.as_int(mark.extent) else None


def _unfuse(total, value, iters) -> dict | None:
    form = _arith.linear(total)
    terms = sorted(((c, atom) for atom, c in form.terms.values()), key=lambda t: -t[0])
    if form.const != 0 or any(not isinstance(a, Var) or a not in iters for _, a in terms):
        return None
    out, above = {}, None
    for k, (coeff, var) in enumerate(terms):
        extent = _arith.as_int(iters[var].extent)
        if extent is None or (above is not None and coeff * extent != above):
            return None
        part = value if coeff == 1 else FloorDiv(value, const(coeff, value.dtype))
        if k > 0:
            part = FloorMod(part, const(extent, value.dtype))
        out[var] = part
        above = coeff
    return out

"""Put a fused loop index back together from its digits: ``x // y * (y*k) + x % y * k → x * k``.

A loop fused over symbolic extents (``fuse(b, h, s)`` into ``f``) reads its rows at flat
offsets built from the digits of ``f``::

    f // (s*12) * (s*s*12) + f % (s*12) // s * (s*s) + f % s * s

which is just ``f * s``, but each ``//`` and ``%`` by a symbolic value is a hardware divide.
Two identities (floor division, any divisor) undo the digits, applied to the terms of a sum
until none applies; factors are compared as multisets, so the order of a product does not
matter:

- ``x // y * (y * k) + x % y * k  →  x * k``
- ``x % w // y * (y * k) + x % y * k  →  x % w * k``  when ``y`` is a factor of ``w``
  (``(x % w) % y == x % y`` then)

``merge_index_digits(expr)`` returns ``expr`` itself when nothing merged.
"""

from __future__ import annotations

from ember.ir import Add, FloorDiv, FloorMod, IntImm, Mul, PrimExpr, const, structural_equal

__all__ = ["merge_index_digits", "summands", "sum_of"]


def summands(e: PrimExpr) -> list:
    """The terms of a (nested) sum, left to right."""
    return summands(e.a) + summands(e.b) if isinstance(e, Add) else [e]


def sum_of(terms: list) -> PrimExpr:
    """The terms added left to right (one term: itself)."""
    out = terms[0]
    for t in terms[1:]:
        out = Add(out, t)
    return out


def _factors(e: PrimExpr) -> list:
    return _factors(e.a) + _factors(e.b) if isinstance(e, Mul) else [e]


def _same(a: PrimExpr, b: PrimExpr) -> bool:
    return structural_equal(a, b, map_free_vars=False)


def _split_scale(factors: list) -> tuple[int, list]:
    """(product of the constant factors, the other factors)."""
    scale, rest = 1, []
    for f in factors:
        if isinstance(f, IntImm):
            scale *= f.value
        else:
            rest.append(f)
    return scale, rest


def _remove(factors: list, part: list) -> list | None:
    """``factors`` without the factors of ``part`` (each once), or None when one is missing."""
    left = list(factors)
    for p in part:
        hit = next((n for n, f in enumerate(left) if _same(f, p)), None)
        if hit is None:
            return None
        left.pop(hit)
    return left


def _quotient(whole: list, part: list) -> tuple[int, list] | None:
    """``whole / part`` as (constant, factors) when ``part`` divides ``whole`` factor by factor."""
    wc, wf = _split_scale(whole)
    pc, pf = _split_scale(part)
    if pc == 0 or wc % pc:
        return None
    left = _remove(wf, pf)
    return None if left is None else (wc // pc, left)


def _same_factors(a: tuple[int, list], b: tuple[int, list]) -> bool:
    return a[0] == b[0] and len(a[1]) == len(b[1]) and _remove(a[1], b[1]) == []


def _digit(term: PrimExpr, kind) -> tuple[PrimExpr, tuple[int, list]] | None:
    """``term`` as (a ``kind`` node, the product of its other factors)."""
    factors = _factors(term)
    for n, f in enumerate(factors):
        if isinstance(f, kind):
            return f, _split_scale(factors[:n] + factors[n + 1:])
    return None


def _merge_pair(high: PrimExpr, low: PrimExpr) -> PrimExpr | None:
    """``high + low`` as one term when they are neighbouring digits of one index."""
    hi, lo = _digit(high, FloorDiv), _digit(low, FloorMod)
    if hi is None or lo is None:
        return None
    (div, hi_scale), (mod, lo_scale) = hi, lo
    y = div.b
    if not _same(mod.b, y):
        return None
    # high's scale must be y times low's
    q = _quotient([IntImm(y.dtype, hi_scale[0])] + hi_scale[1], [IntImm(y.dtype, lo_scale[0])] + lo_scale[1])
    if q is None or not _same_factors(q, _split_scale(_factors(y))):
        return None
    x = div.a
    if _same(x, mod.a):
        whole = x  # x // y * y + x % y
    elif isinstance(x, FloorMod) and _same(x.a, mod.a) and _quotient(_factors(x.b), _factors(y)) is not None:
        whole = x  # (x % w) // y * y + x % y, y | w
    else:
        return None
    out = whole
    for f in lo_scale[1]:
        out = Mul(out, f)
    return out if lo_scale[0] == 1 else Mul(out, const(lo_scale[0], out.dtype))


def merge_index_digits(expr: PrimExpr) -> PrimExpr:
    terms = summands(expr)
    if len(terms) < 2:
        return expr
    merged = False
    changed = True
    while changed and len(terms) > 1:
        changed = False
        for i, a in enumerate(terms):
            for j, b in enumerate(terms):
                if i == j:
                    continue
                m = _merge_pair(a, b)
                if m is not None:
                    terms = [m if n == i else t for n, t in enumerate(terms) if n != j]
                    merged = changed = True
                    break
            if changed:
                break
    return sum_of(terms) if merged else expr

"""Simplifier rules for vector expressions (``Ramp`` and ``Broadcast``).

Lowered vector loops produce ``Ramp(base, stride, lanes)`` indices and ``Broadcast``
operands; these rules push scalar arithmetic into them so codegen sees contiguous
ramps: ``Broadcast(a) op Broadcast(b)`` → ``Broadcast(a op b)``, ``Ramp + Broadcast``
→ ``Ramp``, ``Ramp * Broadcast`` → ``Ramp``, and ``Ramp(b, s, n) // Broadcast(c)`` →
``Broadcast(b // c)`` when the ramp stays inside one multiple of ``c``.
"""

from __future__ import annotations

import math

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, Div, FloatImm, FloorDiv, FloorMod, IntImm, Max, Min, Mod,
    Mul, Or, Ramp, Sub,
)

__all__ = ["vector_rules"]


def _same_lanes(s, a, b) -> bool:
    """Equal lane counts: ints, or the same scalable ``vscale * n`` expression."""
    if isinstance(a, int) or isinstance(b, int):
        return a == b
    return s.same(a, b)


def _both_broadcast(s, e):
    if type(e.a) is Broadcast and type(e.b) is Broadcast and _same_lanes(s, e.a.lanes, e.b.lanes):
        return Broadcast(type(e)(e.a.value, e.b.value), e.a.lanes)
    return None


def _ramp_add(s, e):
    a, b = e.a, e.b
    sign = type(e) is Sub
    if type(a) is Ramp and type(b) is Broadcast and _same_lanes(s, a.lanes, b.lanes):
        return Ramp(type(e)(a.base, b.value), a.stride, a.lanes)
    if type(a) is Broadcast and type(b) is Ramp and _same_lanes(s, a.lanes, b.lanes):
        stride = Sub(IntImm(b.stride.dtype, 0), b.stride) if sign else b.stride
        return Ramp(type(e)(a.value, b.base), stride, b.lanes)
    if type(a) is Ramp and type(b) is Ramp and _same_lanes(s, a.lanes, b.lanes):
        return Ramp(type(e)(a.base, b.base), type(e)(a.stride, b.stride), a.lanes)
    return None


def _ramp_mul(s, e):
    a, b = e.a, e.b
    if type(a) is Broadcast:
        a, b = b, a
    if type(a) is Ramp and type(b) is Broadcast and _same_lanes(s, a.lanes, b.lanes):
        return Ramp(Mul(a.base, b.value), Mul(a.stride, b.value), a.lanes)
    return None


def _ramp_in_one_period(s, e):
    """(base, c) when ``Ramp(base, stride, n)`` never crosses a multiple of ``c``."""
    a, b = e.a, e.b
    if type(a) is not Ramp or type(b) is not Broadcast or type(b.value) is not IntImm:
        return None
    c = b.value.value
    if c <= 0 or type(a.stride) is not IntImm or a.stride.value < 0 or not isinstance(a.lanes, int):
        return None
    from .modular_set import modular_of

    # base = g*k + r (g = gcd(coeff, c)): within its period base sits at most c - g + r,
    # so the ramp stays inside one multiple of c when r + stride*(n - 1) < g
    m = modular_of(s.ana, a.base)
    g = math.gcd(m.coeff, c)
    if m.base % g + a.stride.value * (a.lanes - 1) < g:
        return a, b.value
    return None


def _ramp_stride_multiple(s, e):
    """``Ramp(b, k*c, n) // c`` → ``Ramp(b // c, k, n)``; ``Ramp(b, k*c, n) % c`` →
    ``Broadcast(b % c, n)``; else a base known modulo c is reduced: ``Ramp(x*8 + 1, 15, 4) % 8``
    → ``Ramp(1, 15, 4) % 8``."""
    a, b = e.a, e.b
    if type(a) is not Ramp or type(b) is not Broadcast or type(b.value) is not IntImm:
        return None
    c = b.value.value
    if c <= 0 or type(a.stride) is not IntImm:
        return None
    if a.stride.value % c == 0:
        if type(e) is FloorDiv:
            return Ramp(FloorDiv(a.base, b.value), IntImm(a.stride.dtype, a.stride.value // c), a.lanes)
        return Broadcast(FloorMod(a.base, b.value), a.lanes)
    if type(e) is FloorMod and type(a.base) is not IntImm:
        from .modular_set import modular_of

        m = modular_of(s.ana, a.base)
        if m.coeff and m.coeff % c == 0:
            base = IntImm(a.base.dtype, m.base % c)
            return FloorMod(Ramp(base, a.stride, a.lanes), b)
    return None


def _ramp_floordiv(s, e):
    hit = _ramp_in_one_period(s, e)
    if hit is None:
        return None
    ramp, c = hit
    return Broadcast(FloorDiv(ramp.base, c), ramp.lanes)


def _ramp_floormod(s, e):
    hit = _ramp_in_one_period(s, e)
    if hit is None:
        return None
    ramp, c = hit
    return Ramp(FloorMod(ramp.base, c), ramp.stride, ramp.lanes)


def _nonneg_ramp(s, e) -> bool:
    """Every lane of the ramp numerator is >= 0 (truncating and floor division agree)."""
    a = e.a
    return (type(a) is Ramp and type(a.stride) is IntImm and a.stride.value >= 0
            and s.bound(a.base)[0] >= 0)


def _trunc_as_floor(floor_rule, floor_cls, trunc_cls):
    """A floor-division ramp rule reused for ``/`` and ``%`` when no lane is negative."""
    def rule(s, e):
        if not _nonneg_ramp(s, e):
            return None
        r = floor_rule(s, floor_cls(e.a, e.b))
        return None if r is None else _retype(r, floor_cls, trunc_cls)
    return rule


def _retype(e, floor_cls, trunc_cls):
    """``e`` with its floor division/modulo nodes (top and inner) made truncating."""
    from ember.ir import replace

    if type(e) is floor_cls:
        return trunc_cls(e.a, e.b)
    if type(e) in (Ramp, Broadcast):
        field = "base" if type(e) is Ramp else "value"
        inner = getattr(e, field)
        return replace(e, **{field: trunc_cls(inner.a, inner.b)}) if type(inner) is floor_cls else e
    return e


def _add_zero(s, e):
    """``v + Broadcast(0)`` → ``v`` (int or float lanes), either order."""
    for zero, other in ((e.b, e.a), (e.a, e.b)):
        if type(zero) is Broadcast and type(zero.value) in (IntImm, FloatImm) and zero.value.value == 0 \
                and other.dtype == e.dtype:
            return other
    return None


def _minmax_broadcast_chain(s, e):
    """``min(min(v, Broadcast(y)), Broadcast(z))`` → ``min(v, Broadcast(min(y, z)))``."""
    a, b, cls = e.a, e.b, type(e)
    if type(a) is cls and type(a.b) is Broadcast and type(b) is Broadcast and _same_lanes(s, a.b.lanes, b.lanes):
        return cls(a.a, Broadcast(cls(a.b.value, b.value), b.lanes))
    return None


def _ramp_zero_stride(s, e):
    if type(e.stride) is IntImm and e.stride.value == 0:
        return Broadcast(e.base, e.lanes)
    return None


_TABLE = {
    Add: [_both_broadcast, _add_zero, _ramp_add],
    Sub: [_both_broadcast, _ramp_add],
    Mul: [_both_broadcast, _ramp_mul],
    FloorDiv: [_both_broadcast, _ramp_floordiv, _ramp_stride_multiple],
    FloorMod: [_both_broadcast, _ramp_floormod, _ramp_stride_multiple],
    Div: [_both_broadcast, _trunc_as_floor(_ramp_floordiv, FloorDiv, Div),
          _trunc_as_floor(_ramp_stride_multiple, FloorDiv, Div)],
    Mod: [_both_broadcast, _trunc_as_floor(_ramp_floormod, FloorMod, Mod),
          _trunc_as_floor(_ramp_stride_multiple, FloorMod, Mod)],
    Min: [_both_broadcast, _minmax_broadcast_chain],
    Max: [_both_broadcast, _minmax_broadcast_chain],
    And: [_both_broadcast],
    Or: [_both_broadcast],
    Ramp: [_ramp_zero_stride],
    **{cls: [_both_broadcast] for cls in (EQ, NE, LT, LE, GT, GE)},
}


def vector_rules(cls) -> list:
    """The vector rules of node type ``cls``."""
    return list(_TABLE.get(cls, ()))

"""Simplifier rules that move terms into ``min``/``max`` or drop multiples under ``%``.

- ``push_into_minmax``: a sum ``min(a, b) + r`` becomes ``min(a + r, b + r)`` when that
  is shorter (``min(x, y - z) + z`` → ``min(x + z, y)``, ``x - max(x, y)`` →
  ``min(0, x - y)``); ``min(a, b) + max(a, b)`` is ``a + b``.
- ``merge_selects``: ``select(c, a, b) op select(c, d, e)`` → ``select(c, a op d, b op e)``
  (``+ - min max``), and ``select(c, y, z) - y`` → ``select(c, 0, z - y)``.
- ``minmax_absorb``: ``min(m, y)`` is ``m`` when ``y`` is already an operand of the min
  chain ``m`` (``min(min(min(x, y), z), y)`` → ``min(min(x, y), z)``), max likewise.
- ``mod_drop_residues``: under ``% c`` a term ``u % v`` (or ``truncmod(u, v)``) with ``c``
  dividing ``v`` is congruent to ``u``, so it is replaced by ``u`` (``(x - x % 9) % 9`` → 0).
"""

from __future__ import annotations

from ember.ir import FloorMod, IntImm, Max, Min, Mod, PrimExpr, Select

from .linear import Linear, is_int_scalar

__all__ = ["push_into_minmax", "mod_drop_residues", "merge_selects", "minmax_absorb"]


def push_into_minmax(s, e) -> PrimExpr | None:
    if not is_int_scalar(e.dtype) or e.dtype.is_uint or e.dtype.bits < 32:
        return None
    from .rules_arith import _emit

    lin = s.linear(e)
    found = [(k, a, c) for k, (a, c) in lin.terms.items() if type(a) in (Min, Max) and c in (1, -1)]
    if len(found) == 2:
        (k1, a1, c1), (k2, a2, c2) = found
        if c1 == c2 == 1 and type(a1) is not type(a2) and _same_pair(s, a1, a2):
            rest = Linear({k: t for k, t in lin.terms.items() if k not in (k1, k2)}, lin.const)
            return _emit(s, rest.plus(s.linear(a1.a)).plus(s.linear(a1.b)), e.dtype)
        return None
    if len(found) != 1:
        return None
    key, atom, coeff = found[0]
    rest = Linear({k: t for k, t in lin.terms.items() if k != key}, lin.const)
    if not rest.terms and not rest.const:
        return None
    la, lb = s.linear(atom.a).scaled(coeff), s.linear(atom.b).scaled(coeff)
    cls = type(atom) if coeff == 1 else (Max if type(atom) is Min else Min)
    na, nb = la.plus(rest), lb.plus(rest)
    if na.size() + nb.size() >= la.size() + lb.size() + rest.size():
        return None
    return cls(_emit(s, na, e.dtype), _emit(s, nb, e.dtype))


def _same_pair(s, a, b) -> bool:
    return (s.same(a.a, b.a) and s.same(a.b, b.b)) or (s.same(a.a, b.b) and s.same(a.b, b.a))


def mod_drop_residues(s, e) -> PrimExpr | None:
    if type(e) is not FloorMod or not is_int_scalar(e.dtype):
        return None
    from .rules_arith import _emit

    lin = s.linear(e.a)
    out, changed = Linear({}, lin.const), False
    for k, (atom, c) in lin.terms.items():
        if type(atom) in (FloorMod, Mod) and _divides(s, e.b, atom.b):
            out = out.plus(s.linear(atom.a), c)
            changed = True
        else:
            out = out.plus(Linear({k: (atom, c)}))
    if not changed:
        return None
    return FloorMod(_emit(s, out, e.dtype), e.b)


def _divides(s, c, v) -> bool:
    """``c`` divides ``v``: equal, negated, or constant multiples."""
    if type(c) is IntImm and type(v) is IntImm:
        return c.value != 0 and v.value % c.value == 0
    if s.same(c, v):
        return True
    lin_c, lin_v = s.linear(c), s.linear(v)
    return not lin_c.plus(lin_v).terms and lin_c.const == -lin_v.const  # v == -c


def merge_selects(s, e) -> PrimExpr | None:
    a, b = e.a, e.b
    cls = type(e)
    if type(a) is Select and type(b) is Select and s.same(a.condition, b.condition):
        return Select(a.condition, cls(a.true_value, b.true_value), cls(a.false_value, b.false_value))
    if type(a) is Select and type(b) is not Select and cls.__name__ == "Sub":
        if s.same(b, a.true_value) or s.same(b, a.false_value):
            return Select(a.condition, cls(a.true_value, b), cls(a.false_value, b))
    return None


_CHAIN_LEAVES = 16


def _chain_leaves(e, cls) -> list:
    """Operands of a nested ``cls`` (min or max) chain, at most ``_CHAIN_LEAVES`` of them."""
    out, stack = [], [e]
    while stack and len(out) < _CHAIN_LEAVES:
        cur = stack.pop()
        if type(cur) is cls:
            stack += [cur.b, cur.a]
        else:
            out.append(cur)
    return out


def minmax_absorb(s, e) -> PrimExpr | None:
    cls = type(e)
    for chain, other in ((e.a, e.b), (e.b, e.a)):
        if type(chain) is cls and any(s.same(leaf, other) for leaf in _chain_leaves(chain, cls)):
            return chain
    return None

"""Simplifier rules for integer arithmetic that reason over linear forms and bounds.

- ``linear_sum``: ``+``, ``-`` and ``* const`` become the canonical linear form, with
  ``(x // c) * c + x % c`` folded back to ``x`` (and ``x - (x // c) * c`` to ``x % c``).
- ``div_linear`` / ``mod_linear``: ``(x*c1 + y) // c2`` splits off the multiples of
  ``c2``; what remains is decided from its bounds (``y // c`` is 0 when 0 <= y < c) or
  reduced by common factors.  Truncating ``/`` and ``%`` get the same treatment once
  their numerator is proven non-negative.
- ``minmax_bound``: ``min``/``max`` decided when one side is provably smaller, and
  common terms pulled out (``min(x + 2, y + 2)`` → ``min(x, y) + 2``).
"""

from __future__ import annotations

import math

from ember.ir import Add, Cast, Div, FloorDiv, FloorMod, IntImm, Min, Mod, Mul, PrimExpr, Sub

from .linear import Linear, is_int_scalar, to_expr

__all__ = ["linear_sum", "div_linear", "mod_linear", "minmax_bound", "mul_products", "cast_linear"]

_DIV_OF = {FloorMod: FloorDiv, Mod: Div}


def linear_sum(s, e) -> PrimExpr | None:
    """Rebuild an integer ``+``/``-``/``*`` in canonical linear form."""
    if not is_int_scalar(e.dtype):
        return None
    lin = _recombine_div_mod(s, s.linear(e), e.dtype)
    r = _emit(s, lin, e.dtype)
    return None if s.same(r, e) else r


def mul_products(s, e) -> PrimExpr | None:
    """``(x*c1) * (y*c2)`` → ``(x*y) * (c1*c2)``."""
    if not is_int_scalar(e.dtype) or type(e.a) is IntImm or type(e.b) is IntImm:
        return None
    la, lb = s.linear(e.a), s.linear(e.b)
    if la.const or lb.const or len(la.terms) != 1 or len(lb.terms) != 1:
        return None
    (xa, ca), = la.terms.values()
    (xb, cb), = lb.terms.values()
    if ca == 1 and cb == 1:
        return None
    return Mul(Mul(xa, xb), IntImm(e.dtype, ca * cb))


def _exact_multiples(s, lin: Linear) -> Linear:
    """``k*c*(x // c)`` → ``k*x`` when x is a known multiple of c (``(i*8) // 4 * 4``)."""
    from .modular_set import modular_of

    for key, (atom, coeff) in list(lin.terms.items()):
        if type(atom) not in (FloorDiv, Div) or type(atom.b) is not IntImm or atom.b.value <= 0:
            continue
        c = atom.b.value
        if coeff % c:
            continue
        m = modular_of(s.ana, atom.a)
        if m.coeff % c == 0 and m.base % c == 0:
            lin = lin.plus(Linear({key: (atom, coeff)}), -1).plus(s.linear(atom.a), coeff // c)
    return lin


def _replace_terms(lin: Linear, keys: set, by: Linear) -> Linear:
    """``lin`` without the terms ``keys``, plus ``by`` placed where the first of them was."""
    out = Linear({}, lin.const)
    placed = False
    for k, t in lin.terms.items():
        if k not in keys:
            out = out.plus(Linear({k: t}))
        elif not placed:
            out = out.plus(by)
            placed = True
    return out if placed else out.plus(by)


def _recombine_div_mod(s, lin: Linear, dtype) -> Linear:
    """``k*c*(x // c) + k*(x % c)`` → ``k*x``; ``k*x - k*c*(x // c)`` → ``k*(x % c)``."""
    if not any(type(a) in (FloorDiv, Div, FloorMod, Mod) for a, _ in lin.terms.values()):
        return lin
    lin = _exact_multiples(s, lin)
    changed = True
    while changed:
        changed = False
        for atom, coeff in list(lin.terms.values()):
            if type(atom) not in (FloorMod, Mod) or type(atom.b) is not IntImm:
                continue
            c = atom.b.value
            div_cls = _DIV_OF[type(atom)]
            key = s.keys.lookup(s.keys.shape_of(div_cls, atom.a, atom.b))
            div_term = lin.terms.get(key) if key is not None else None
            if div_term is not None and div_term[1] == coeff * c:
                # k*c*(x//c) + k*(x%c) == k*x (floor and trunc alike); x takes the place
                # of whichever of the two came first
                lin = _replace_terms(lin, {key, s.keys.key(atom)}, s.linear(atom.a).scaled(coeff))
                changed = True
                break
        if changed:
            continue
        for key, (atom, coeff) in list(lin.terms.items()):
            if type(atom) not in (FloorDiv, Div) or type(atom.b) is not IntImm:
                continue
            c = atom.b.value
            if c == 0 or coeff % c:
                continue
            k = -coeff // c
            if k == 0:
                continue
            # k*x - k*c*(x//c) == k*(x%c): take it unless it makes the sum longer; the
            # remainder takes the place of the quotient (y - (y+z)//5*5 -> (y+z)%5 - z)
            mod_cls = FloorMod if type(atom) is FloorDiv else Mod
            mod_lin = s.linear(s.visit(mod_cls(atom.a, atom.b)))
            trial = Linear({}, lin.const + k * mod_lin.const)
            for other, t in lin.terms.items():  # merged term by term: keys may repeat
                trial = trial.plus(mod_lin.scaled(k).plus(Linear({}, -k * mod_lin.const))
                                   if other == key else Linear({other: t}))
            trial = trial.plus(s.linear(atom.a), -k)
            if trial.size() <= lin.size():
                lin = trial
                changed = True
                break
    return lin


def _positive_const(e) -> int | None:
    return e.value if type(e) is IntImm and e.value > 0 else None


def _split(lin: Linear, c: int) -> tuple[Linear, Linear]:
    """``lin == c * q + r`` with the multiples of ``c`` in q and ``r.const`` in [0, c)."""
    q, r = {}, {}
    for k, (atom, coeff) in lin.terms.items():
        if coeff % c == 0:
            q[k] = (atom, coeff // c)
        else:
            r[k] = (atom, coeff)
    qc, rc = divmod(lin.const, c)
    return Linear(q, qc), Linear(r, rc)


def _split_coefficients(lin: Linear, c: int) -> tuple[Linear, Linear]:
    """``lin == c * q + r`` with every coefficient of r of magnitude below c (its sign kept)."""
    q, r = {}, {}
    for k, (atom, coeff) in lin.terms.items():
        whole = abs(coeff) // c * (1 if coeff > 0 else -1)
        if whole:
            q[k] = (atom, whole)
        if coeff - whole * c:
            r[k] = (atom, coeff - whole * c)
    return Linear(q, 0), Linear(r, lin.const)


def _small_remainder(s, lin: Linear, c: int):
    """``(g, big, small)`` with ``lin == big + small``, g > 1 dividing c and every coefficient
    (and the constant) of big, and ``0 <= small < g``: then ``lin // c == (big/g) // (c/g)``."""
    if len(lin.terms) < 2:
        return None
    order = sorted(lin.terms.items(), key=lambda kv: -abs(kv[1][1]))
    for n in range(1, len(order)):
        big = Linear(dict(order[:n]), 0)
        g = math.gcd(_gcd_terms(big), c)
        if g <= 1:
            continue
        small = Linear(dict(order[n:]), lin.const)
        lo, hi = s.lin_bound(small)
        if lo >= 0 and hi < g:
            return g, big, small
    return None


def _gcd_terms(lin: Linear) -> int:
    g = 0
    for _, coeff in lin.terms.values():
        g = math.gcd(g, coeff)
    return g


def _floor_div_mod(s, e, want_div: bool, div_cls, mod_cls) -> PrimExpr | None:
    """Floor semantics of ``e.a // c`` (or ``%``) over the linear form of ``e.a``."""
    c = _positive_const(e.b)
    dtype = e.dtype
    if c is None:
        return None
    if c == 1:
        return e.a if want_div else IntImm(dtype, 0)
    lin = s.linear(e.a)
    q, r = _split(lin, c)
    lo, hi = s.lin_bound(r)
    if lo != -math.inf and hi != math.inf and lo // c == hi // c:
        k = lo // c  # r lies within one period
        if want_div:
            return _emit(s, q.plus(Linear({}, k)), dtype)
        return _emit(s, r.plus(Linear({}, -k * c)), dtype)
    ms = _modular_of_linear(s, r)
    if not want_div and ms is not None and ms[0] % c == 0:
        return IntImm(dtype, ms[1] % c)
    q2, r2 = _split_coefficients(r, c)
    if q2.terms:  # (x*360 + y) // 16 = x*22 + (x*8 + y) // 16, and that rest is in one period
        lo2, hi2 = s.lin_bound(r2)
        if lo2 != -math.inf and hi2 != math.inf and lo2 // c == hi2 // c:
            k = lo2 // c
            if want_div:
                return _emit(s, q.plus(q2).plus(Linear({}, k)), dtype)
            return _emit(s, r2.plus(Linear({}, -k * c)), dtype)
    small = _small_remainder(s, r, c)
    if small is not None:  # (x*32 + y) // 64 = x // 2 when 0 <= y < 32
        g, big, rest = small
        inner = _emit(s, Linear({k: (a, v // g) for k, (a, v) in big.terms.items()}, big.const // g), dtype)
        cg = IntImm(dtype, c // g)
        if want_div:
            return _emit(s, q.plus(_atom(s, div_cls(inner, cg))), dtype)
        return _emit(s, _atom(s, mod_cls(inner, cg)).scaled(g).plus(rest), dtype)
    if not want_div and q2.terms and div_cls is FloorDiv:  # (x*360 + y) % 16 = (x*8 + y) % 16
        return FloorMod(_emit(s, r2, dtype), e.b)
    # divide out a factor common to the remaining terms and the divisor
    g = math.gcd(_gcd_terms(r), c)
    residue_cls_div, residue_cls_mod = div_cls, mod_cls
    if lo < 0:
        residue_cls_div, residue_cls_mod = FloorDiv, FloorMod
    if g > 1:
        low = r.const % g
        reduced = Linear({k: (a, v // g) for k, (a, v) in r.terms.items()}, r.const // g)
        inner = _emit(s, reduced, dtype)
        cg = IntImm(dtype, c // g)
        if want_div:
            return _emit(s, q.plus(_atom(s, residue_cls_div(inner, cg))), dtype)
        m = _atom(s, residue_cls_mod(inner, cg)).scaled(g).plus(Linear({}, low))
        return _emit(s, m, dtype)
    if want_div:
        if q.is_const() and q.const == 0 and r.const == lin.const and type(e) is residue_cls_div:
            return None
        return _emit(s, q.plus(_atom(s, residue_cls_div(_emit(s, r, dtype), e.b))), dtype)
    if r.size() == lin.size() and r.const == lin.const and type(e) is residue_cls_mod:
        return None
    return _emit(s, _atom(s, residue_cls_mod(_emit(s, r, dtype), e.b)), dtype)


def _atom(s, e: PrimExpr) -> Linear:
    """The linear form of the new node ``e``, simplified first."""
    return s.linear(s.visit(e))


def _emit(s, lin: Linear, dtype) -> PrimExpr:
    """Build ``lin``; its atoms are simplified, so the sums built are too."""
    return to_expr(lin, dtype, s.mark_simplified)


def _modular_of_linear(s, lin: Linear):
    from .modular_set import modular_of

    g, base = 0, lin.const
    for atom, coeff in lin.terms.values():
        m = modular_of(s.ana, atom)
        g = math.gcd(g, coeff * m.coeff)
        base += coeff * m.base
    return (g, base)


def _exact_div(s, e, want_div: bool) -> PrimExpr | None:
    """Truncating division that divides exactly: ``(x*8 + 4) / 4`` → ``x*2 + 1``."""
    c = e.b.value if type(e.b) is IntImm else 0
    if c == 0:
        return None
    if c == 1:
        return e.a if want_div else IntImm(e.dtype, 0)
    lin = s.linear(e.a)
    if lin.const % c or any(v % c for _, v in lin.terms.values()):
        return _common_factor(s, e, lin, c, want_div)
    if not want_div:
        return IntImm(e.dtype, 0)
    return _emit(s, Linear({k: (a, v // c) for k, (a, v) in lin.terms.items()}, lin.const // c), e.dtype)


def _common_factor(s, e, lin: Linear, c: int, want_div: bool) -> PrimExpr | None:
    """``(g*a) / (g*b)`` → ``a / b`` and ``(g*a) % (g*b)`` → ``(a % b)*g`` (truncating: the
    real quotient is the same, so is its rounding towards zero)."""
    if type(e) not in (Div, Mod):
        return None
    g = math.gcd(_gcd_terms(lin), lin.const, c)
    if g <= 1:
        return None
    inner = _emit(s, Linear({k: (a, v // g) for k, (a, v) in lin.terms.items()}, lin.const // g), e.dtype)
    cg = IntImm(e.dtype, c // g)
    return Div(inner, cg) if want_div else Mul(Mod(inner, cg), IntImm(e.dtype, g))


def _split_linear(s, e, is_div: bool) -> PrimExpr | None:
    """Shared body of ``div_linear`` / ``mod_linear``: floor forms always, truncating
    forms once the numerator is provably non-negative."""
    if not is_int_scalar(e.dtype):
        return None
    positive = _positive_const(e.b) is not None
    if type(e) in (FloorDiv, FloorMod) and positive:
        return _floor_div_mod(s, e, is_div, FloorDiv, FloorMod)
    if type(e) in (Div, Mod) and positive and s.bound(e.a)[0] >= 0:
        return _floor_div_mod(s, e, is_div, Div, Mod)
    return _exact_div(s, e, is_div)


def div_linear(s, e) -> PrimExpr | None:
    return _split_linear(s, e, True)


def mod_linear(s, e) -> PrimExpr | None:
    return _split_linear(s, e, False)


def minmax_bound(s, e) -> PrimExpr | None:
    """Decide ``min``/``max`` when one side provably wins; pull out common terms.  Not for
    unsigned or narrow integers: they wrap around, so ``max(a + b, b)`` is not ``a + b``."""
    if not is_int_scalar(e.dtype) or e.dtype.is_uint or e.dtype.bits < 32:
        return None
    la, lb = s.linear(e.a), s.linear(e.b)
    from .rules_logic import _recombine

    diff = _recombine(s, la.plus(lb, -1), e.dtype)  # x - (x // 4) * 4 is x % 4 >= 0
    is_min = type(e) is Min
    if s.prove_le0(diff):  # a <= b
        return e.a if is_min else e.b
    if s.prove_le0(diff.scaled(-1)):  # b <= a
        return e.b if is_min else e.a
    common = {k: t for k, t in la.terms.items() if lb.terms.get(k, (None, None))[1] == t[1]}
    const = la.const if la.const == lb.const else 0
    if not common and not const:
        return None
    shared = Linear(common, const)
    ra, rb = la.plus(shared, -1), lb.plus(shared, -1)
    inner = type(e)(_emit(s, ra, e.dtype), _emit(s, rb, e.dtype))
    return _emit(s, _atom(s, inner).plus(shared), e.dtype)  # min(y, z) + x, as TVM writes it


def _fits(s, e: PrimExpr, dtype) -> bool:
    from .const_int_bound import dtype_range

    lo, hi = s.bound(e)
    r = dtype_range(dtype)
    return r[0] <= lo and hi <= r[1]


def _cast_atom(s, atom: PrimExpr, dtype) -> PrimExpr:
    if type(atom) is Cast and atom.value.dtype is dtype and _fits(s, atom.value, atom.dtype):
        return atom.value  # int64(int32(x)) with x in int32 range is x
    return s.visit(Cast(dtype, atom))


def cast_linear(s, e) -> PrimExpr | None:
    """Cast of an integer sum → sum of casts, when every term fits both types.

    ``int64(i*4 + j)`` → ``int64(i)*4 + int64(j)``, so index arithmetic mixed across
    widths still cancels; ``int32(int64(x))`` of an int32 ``x`` is ``x``.
    """
    v, dtype = e.value, e.dtype
    if not (is_int_scalar(dtype) and is_int_scalar(v.dtype)):
        return None
    if type(v) is Cast and v.value.dtype is dtype and v.dtype.bits >= dtype.bits and \
            v.dtype.is_int == dtype.is_int:
        return v.value  # widening then narrowing back
    if type(v) not in (Add, Sub, Mul):
        return None
    lin = s.linear(v)
    if lin.single_atom() is not None:  # a product of two non-constants: nothing to push into
        return None
    if not all(_fits(s, atom, dtype) for atom, _ in lin.terms.values()) or not _fits(s, v, dtype):
        return None
    out = Linear({}, lin.const)
    for atom, coeff in lin.terms.values():
        out = out.plus(s.linear(_cast_atom(s, atom, dtype)), coeff)
    return _emit(s, out, dtype)

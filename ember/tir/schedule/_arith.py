"""Minimal integer arithmetic the schedule primitives need: linear forms and bounds.

``simplify`` is ``ember.arith.Analyzer.simplify`` with the given Var bounds bound
(``i_0 * 4 + i_1 - i_0 * 4 → i_1``, ``(8 * a + b) // 8 → a`` when ``0 <= b < 8``).
The rest answers in the shapes the primitives need, which ``ember.arith`` does not
give: ``const_bound`` gives constant bounds with None for "unknown" (an unbounded Var
has no bound here, where the analyzer falls back to its dtype's range), ``linear``
splits an index into a constant and coefficients per atom, and ``relax_bound`` bounds
an expression symbolically, as linear forms, while some variables range over intervals.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import (
    Add, Cast, FloorDiv, FloorMod, IntImm, Max, Min, Mul, PrimExpr, Range, Sub, Var, const,
)

__all__ = ["simplify", "const_bound", "relax_bound", "as_int", "is_const", "expr_key", "linear",
           "BoundError"]


class BoundError(ValueError):
    """An index expression the bound analysis cannot handle."""

Bounds = dict  # Var -> (lo: int, hi: int), inclusive


def as_int(e) -> int | None:
    """The Python int value of a constant expression, else None."""
    if isinstance(e, int):
        return e
    if isinstance(e, IntImm):
        return int(e.value)
    return None


def is_const(e, value: int | None = None) -> bool:
    v = as_int(e)
    return v is not None and (value is None or v == value)


def expr_key(e) -> object:
    """A hashable key equal for structurally equal expressions over the same Vars."""
    if isinstance(e, Var):
        return ("v", id(e))
    if isinstance(e, IntImm):
        return ("c", e.value)
    fields = getattr(type(e), "__dataclass_fields__", None)
    if fields is None:
        return ("o", id(e))
    return (type(e).__name__,) + tuple(
        expr_key(getattr(e, f)) if isinstance(getattr(e, f), PrimExpr) else ("o", id(getattr(e, f)))
        for f in fields
    )


# -- linear forms ---------------------------------------------------------------------

class Linear:
    """``const + Σ coeff·atom`` with atoms kept in first-seen order."""

    __slots__ = ("terms", "const", "dtype")

    def __init__(self, dtype, terms=None, c: int = 0):
        self.dtype = dtype
        self.terms: dict = dict(terms or {})  # key -> [atom, coeff]
        self.const = c

    def add(self, other: Linear, scale: int = 1) -> Linear:
        out = Linear(self.dtype, {k: list(v) for k, v in self.terms.items()}, self.const)
        for k, (atom, coeff) in other.terms.items():
            if k in out.terms:
                out.terms[k][1] += coeff * scale
            else:
                out.terms[k] = [atom, coeff * scale]
        out.const += other.const * scale
        return out

    def scale(self, s: int) -> Linear:
        return Linear(self.dtype, {k: [a, c * s] for k, (a, c) in self.terms.items()}, self.const * s)

    def to_expr(self) -> PrimExpr:
        out = None
        for atom, coeff in self.terms.values():
            if coeff == 0:
                continue
            if out is None:
                out = atom if coeff == 1 else atom * coeff
            elif coeff > 0:
                out = out + (atom if coeff == 1 else atom * coeff)
            else:
                out = out - (atom if coeff == -1 else atom * (-coeff))
        if out is None:
            return const(self.const, self.dtype)
        if self.const > 0:
            out = out + self.const
        elif self.const < 0:
            out = out - (-self.const)
        return out


def linear(e: PrimExpr, bounds: Bounds | None = None) -> Linear:
    """The linear form of ``e``; non-affine sub-expressions become (simplified) atoms."""
    bounds = bounds or {}
    dtype = e.dtype
    v = as_int(e)
    if v is not None:
        return Linear(dtype, c=v)
    if isinstance(e, Add):
        return linear(e.a, bounds).add(linear(e.b, bounds))
    if isinstance(e, Sub):
        return linear(e.a, bounds).add(linear(e.b, bounds), -1)
    if isinstance(e, Mul):
        la, lb = linear(e.a, bounds), linear(e.b, bounds)
        if not lb.terms:
            return la.scale(lb.const)
        if not la.terms:
            return lb.scale(la.const)
        atom = la.to_expr() * lb.to_expr()
        return Linear(dtype, {expr_key(atom): [atom, 1]})
    if isinstance(e, FloorDiv | FloorMod) and as_int(e.b) is not None and as_int(e.b) > 0:
        return _div_mod(e, linear(e.a, bounds), as_int(e.b), bounds)
    if isinstance(e, Min | Max):
        a, b = simplify(e.a, bounds), simplify(e.b, bounds)
        diff = linear(a - b, bounds)
        if not diff.terms:
            pick_a = (diff.const <= 0) == isinstance(e, Min)
            return linear(a if pick_a else b, bounds)
        atom = type(e)(a, b)
        return Linear(dtype, {expr_key(atom): [atom, 1]})
    return Linear(dtype, {expr_key(e): [e, 1]})


def _div_mod(e, x: Linear, c: int, bounds: Bounds) -> Linear:
    dtype = e.dtype
    if c == 1:
        return x if isinstance(e, FloorDiv) else Linear(dtype)
    whole = Linear(dtype, {k: [a, co] for k, (a, co) in x.terms.items() if co % c == 0})
    rest = Linear(dtype, {k: [a, co] for k, (a, co) in x.terms.items() if co % c != 0})
    whole.const = (x.const // c) * c
    rest.const = x.const - whole.const
    lo, hi = _linear_bound(rest, bounds)
    if lo is not None and hi is not None and lo >= 0 and hi < c:
        if isinstance(e, FloorDiv):
            return Linear(dtype, {k: [a, co // c] for k, (a, co) in whole.terms.items()}, whole.const // c)
        return rest
    if not rest.terms:  # constant remainder outside [0, c): fold it into the quotient
        q, r = divmod(rest.const, c)
        quotient = Linear(dtype, {k: [a, co // c] for k, (a, co) in whole.terms.items()}, whole.const // c + q)
        return quotient if isinstance(e, FloorDiv) else Linear(dtype, c=r)
    inner = x.to_expr()
    atom = FloorDiv(inner, const(c, dtype)) if isinstance(e, FloorDiv) else FloorMod(inner, const(c, dtype))
    return Linear(dtype, {expr_key(atom): [atom, 1]})


def simplify(e, bounds: Bounds | None = None):
    """Simplify an integer expression with ``ember.arith.Analyzer`` given Var bounds."""
    if not isinstance(e, PrimExpr) or not e.dtype.is_integer or e.dtype.lanes != 1:
        return e
    if isinstance(e, Var | IntImm):
        return e
    return _analyzer(bounds).simplify(e)


def _analyzer(bounds: Bounds | None) -> Analyzer:
    ana = Analyzer()
    for var, (lo, hi) in (bounds or {}).items():
        if lo is not None and hi is not None and hi > lo:  # unit ranges stay symbolic (unit iters)
            ana.bind(var, Range(const(lo, var.dtype), const(hi - lo + 1, var.dtype)))
    return ana


# -- bounds -------------------------------------------------------------------------------

def _linear_bound(x: Linear, bounds: Bounds):
    lo = hi = x.const
    for atom, coeff in x.terms.values():
        alo, ahi = const_bound(atom, bounds)
        if alo is None or ahi is None:
            return None, None
        if coeff >= 0:
            lo, hi = lo + coeff * alo, hi + coeff * ahi
        else:
            lo, hi = lo + coeff * ahi, hi + coeff * alo
    return lo, hi


def const_bound(e, bounds: Bounds | None = None) -> tuple[int | None, int | None]:
    """Inclusive constant bounds of ``e`` given inclusive bounds of its Vars (None: unknown)."""
    bounds = bounds or {}
    v = as_int(e)
    if v is not None:
        return v, v
    if isinstance(e, Var):
        return bounds.get(e, (None, None))
    if isinstance(e, Add | Sub | Mul | Min | Max):
        alo, ahi = const_bound(e.a, bounds)
        blo, bhi = const_bound(e.b, bounds)
        if None in (alo, ahi, blo, bhi):
            return None, None
        if isinstance(e, Add):
            return alo + blo, ahi + bhi
        if isinstance(e, Sub):
            return alo - bhi, ahi - blo
        if isinstance(e, Min):
            return min(alo, blo), min(ahi, bhi)
        if isinstance(e, Max):
            return max(alo, blo), max(ahi, bhi)
        prods = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
        return min(prods), max(prods)
    if isinstance(e, FloorDiv | FloorMod):
        c = as_int(e.b)
        if c is None or c <= 0:
            return None, None
        alo, ahi = const_bound(e.a, bounds)
        if isinstance(e, FloorDiv):
            return (None if alo is None else alo // c), (None if ahi is None else ahi // c)
        if alo is not None and ahi is not None and alo // c == ahi // c:
            return alo % c, ahi % c
        return 0, c - 1
    return None, None


def relax_bound(e: PrimExpr, relax: dict, bounds: Bounds | None = None) -> tuple[PrimExpr, PrimExpr]:
    """Symbolic inclusive (lo, hi) of ``e`` when each Var in ``relax`` ranges over its
    (lo_expr, hi_expr); other Vars stay symbolic."""
    x = linear(e, bounds)
    lo = Linear(x.dtype, c=x.const)
    hi = Linear(x.dtype, c=x.const)
    for key, (atom, coeff) in x.terms.items():
        if isinstance(atom, Var) and atom in relax:
            alo, ahi = (linear(v, bounds) for v in relax[atom])
        elif _mentions(atom, relax):
            alo_e, ahi_e = _relax_atom(atom, relax, bounds)
            alo, ahi = linear(alo_e, bounds), linear(ahi_e, bounds)
        else:
            term = Linear(x.dtype, {key: [atom, 1]})
            alo = ahi = term
        if coeff >= 0:
            lo, hi = lo.add(alo, coeff), hi.add(ahi, coeff)
        else:
            lo, hi = lo.add(ahi, coeff), hi.add(alo, coeff)
    return lo.to_expr(), hi.to_expr()


def _mentions(e, relax: dict) -> bool:
    from ember.tir.functor import collect

    return any(v in relax for v in collect(e, lambda n: isinstance(n, Var)))


def _relax_atom(atom, relax, bounds):
    if isinstance(atom, FloorDiv) and as_int(atom.b):
        lo, hi = relax_bound(atom.a, relax, bounds)
        return simplify(lo // atom.b, bounds), simplify(hi // atom.b, bounds)
    if isinstance(atom, FloorMod) and as_int(atom.b):
        lo, hi = relax_bound(atom.a, relax, bounds)
        if is_const(simplify(hi // atom.b - lo // atom.b, bounds), 0):
            return simplify(lo % atom.b, bounds), simplify(hi % atom.b, bounds)
        return const(0, atom.dtype), const(as_int(atom.b) - 1, atom.dtype)
    if isinstance(atom, Cast) and atom.dtype.is_integer and atom.value.dtype.is_integer:
        # an index cast between integer types (an int64 loop indexing an int32 buffer): the
        # bounds of the value, cast (indices fit both types, so the cast keeps their order)
        lo, hi = relax_bound(atom.value, relax, bounds)
        return simplify(Cast(atom.dtype, lo), bounds), simplify(Cast(atom.dtype, hi), bounds)
    full = dict(bounds or {})
    for v, (lo_e, hi_e) in relax.items():
        lo_c, hi_c = as_int(simplify(lo_e, bounds)), as_int(simplify(hi_e, bounds))
        if lo_c is None or hi_c is None:
            lo_c, hi_c = const_bound(lo_e, bounds)[0], const_bound(hi_e, bounds)[1]
        full[v] = (lo_c, hi_c)
    lo_c, hi_c = const_bound(atom, full)
    if lo_c is None or hi_c is None:
        raise BoundError(f"cannot bound the index expression {atom!r}")
    return const(lo_c, atom.dtype), const(hi_c, atom.dtype)


def _difference_bound(a: PrimExpr, b: PrimExpr, bounds: Bounds | None) -> tuple[int | None, int | None]:
    """Inclusive constant bounds of ``a - b`` over ``bounds``, unit ranges included (``simplify``
    keeps a unit loop's Var symbolic, so ``0`` against ``i0`` of range [0, 0] needs the bounds)."""
    d = simplify(a - b, bounds)
    v = as_int(d)
    return (v, v) if v is not None else const_bound(d, bounds)


def min_expr(a: PrimExpr, b: PrimExpr, bounds: Bounds | None = None) -> PrimExpr:
    lo, hi = _difference_bound(a, b, bounds)
    if hi is not None and hi <= 0:
        return a
    if lo is not None and lo >= 0:
        return b
    return Min(a, b)


def max_expr(a: PrimExpr, b: PrimExpr, bounds: Bounds | None = None) -> PrimExpr:
    lo, hi = _difference_bound(a, b, bounds)
    if lo is not None and lo >= 0:
        return a
    if hi is not None and hi <= 0:
        return b
    return Max(a, b)


def is_quasi_affine(e, loop_vars=None) -> bool:
    """Whether ``e`` is a sum of Vars and of ``//`` / ``%`` by loop-invariant divisors of such
    sums (TVM's quasi-affine bindings).  With ``loop_vars``, anything free of them (a
    symbolic shape expression) counts as a constant."""
    from ember.ir import FloorDiv, FloorMod
    from ember.tir.functor import collect

    def invariant(x) -> bool:
        if as_int(x) is not None:
            return True
        return loop_vars is not None and not collect(x, lambda n: n in loop_vars if isinstance(n, Var) else False)

    for atom, _ in linear(e).terms.values():
        if isinstance(atom, Var) or invariant(atom):
            continue
        if isinstance(atom, FloorDiv | FloorMod):
            if not invariant(atom.b) or not is_quasi_affine(atom.a, loop_vars):
                return False
        else:
            return False
    return True

"""The canonical form of integer sums: ``sum(coeff_i * atom_i) + const``.

A ``Linear`` maps atom keys (from ``StructKeys``) to ``[atom, coeff]`` in order of first
appearance, plus an int constant.  Atoms are everything that is not ``+``, ``-`` or a
multiplication by a constant: variables, products of two non-constant factors,
divisions, calls, loads.  Equal atoms merge, so ``(x + y) - x`` is ``y`` and
``x*4 + x*2`` is ``x*6``.  ``to_expr`` rebuilds an expression deterministically:
positive terms in order, then negative terms subtracted, then the constant.
"""

from __future__ import annotations

from ember.ir import Add, IntImm, Mul, PrimExpr, Sub
from ember.runtime.dtype import DataType

__all__ = ["Linear", "linearize", "to_expr", "is_int_scalar"]


def is_int_scalar(dtype: DataType) -> bool:
    return dtype.is_integer and dtype.lanes == 1


class Linear:
    """``sum(coeff * atom) + const`` with terms keyed by atom key, in first-seen order."""

    __slots__ = ("terms", "const")

    def __init__(self, terms: dict | None = None, const: int = 0):
        self.terms: dict[int, tuple] = terms if terms is not None else {}  # key -> (atom, coeff)
        self.const = const

    @staticmethod
    def atom(key: int, e: PrimExpr, coeff: int = 1) -> Linear:
        return Linear({key: (e, coeff)}, 0)

    def is_const(self) -> bool:
        return not self.terms

    def plus(self, other: Linear, scale: int = 1) -> Linear:
        """``self + scale * other``."""
        terms = dict(self.terms)
        for k, (atom, c) in other.terms.items():
            old = terms.get(k)
            total = (old[1] if old else 0) + scale * c
            if total:
                terms[k] = (old[0] if old else atom, total)
            elif old:
                del terms[k]
        return Linear(terms, self.const + scale * other.const)

    def scaled(self, c: int) -> Linear:
        if c == 0:
            return Linear({}, 0)
        return Linear({k: (a, v * c) for k, (a, v) in self.terms.items()}, self.const * c)

    def size(self) -> int:
        return len(self.terms) + (1 if self.const else 0)

    def single_atom(self):
        """The atom when this is exactly ``1 * atom``, else None."""
        if self.const == 0 and len(self.terms) == 1:
            (atom, c), = self.terms.values()
            if c == 1:
                return atom
        return None

    def __repr__(self) -> str:
        parts = [f"{c}*{a!r}" for a, c in self.terms.values()]
        return f"Linear({' + '.join(parts) or '0'} + {self.const})"


def linearize(s, e: PrimExpr) -> Linear:
    """The linear form of the integer expression ``e`` whose children are simplified."""
    cache = s.ana._linear_cache
    hit = cache.get(id(e))
    if hit is not None:
        return hit[1]
    cls = type(e)
    if cls is Add or cls is Sub:
        from .simplifier import _walk_spine

        _walk_spine(e, cache, lambda n: linearize(s, n))
    if cls is IntImm:
        out = Linear({}, e.value)
    elif cls is Add:
        out = linearize(s, e.a).plus(linearize(s, e.b))
    elif cls is Sub:
        out = linearize(s, e.a).plus(linearize(s, e.b), -1)
    elif cls is Mul and type(e.b) is IntImm:
        out = linearize(s, e.a).scaled(e.b.value)
    elif cls is Mul and type(e.a) is IntImm:
        out = linearize(s, e.b).scaled(e.a.value)
    elif cls is Mul:
        out = _product(s, e)
    else:
        out = Linear.atom(s.keys.key(e), e)
    cache[id(e)] = (e, out)
    return out


_MAX_PRODUCT_TERMS = 8


def _product(s, e: Mul) -> Linear:
    """Distribute a product of two sums when that stays small: (n - 1) * m → n*m - m."""
    la, lb = linearize(s, e.a), linearize(s, e.b)
    if la.is_const():
        return lb.scaled(la.const)
    if lb.is_const():
        return la.scaled(lb.const)
    if la.size() == 1 and lb.size() == 1:  # c1*x times c2*y
        (xa, ca), = la.terms.values()
        (xb, cb), = lb.terms.values()
        if ca == 1 and cb == 1:
            return Linear.atom(s.keys.key(e), e)
        return _atom_product(s, xa, xb, ca * cb)
    if la.size() * lb.size() > _MAX_PRODUCT_TERMS:
        return Linear.atom(s.keys.key(e), e)
    out = Linear({}, la.const * lb.const)
    for xa, ca in la.terms.values():
        if lb.const:
            out = out.plus(Linear.atom(s.keys.key(xa), xa, ca * lb.const))
        for xb, cb in lb.terms.values():
            out = out.plus(_atom_product(s, xa, xb, ca * cb))
    if la.const:
        for xb, cb in lb.terms.values():
            out = out.plus(Linear.atom(s.keys.key(xb), xb, cb * la.const))
    return out


def _atom_product(s, xa: PrimExpr, xb: PrimExpr, c: int) -> Linear:
    """``c * (xa * xb)`` as a one-term linear form, reusing a known ``xa * xb`` node."""
    key = s.keys.lookup(s.keys.shape_of(Mul, xa, xb))
    if key is not None:
        node = s.keys.node_of(key)
        if node is not None:
            return Linear.atom(key, node, c)
    node = Mul(xa, xb)
    return Linear.atom(s.keys.key(node), node, c)


def _term(atom: PrimExpr, c: int, dtype: DataType, done) -> PrimExpr:
    return atom if c == 1 else done(Mul(atom, IntImm(dtype, c)))


def _same(e):
    return e


def to_expr(lin: Linear, dtype: DataType, done=_same) -> PrimExpr:
    """The expression of ``lin`` in ``dtype``: positive terms, then negative, then constant.

    ``done`` is called on every node built (the simplifier uses it to record the pieces
    of a canonical sum as already simplified).
    """
    pos = [(a, c) for a, c in lin.terms.values() if c > 0]
    neg = [(a, -c) for a, c in lin.terms.values() if c < 0]
    out: PrimExpr | None = None
    for a, c in pos:
        t = _term(a, c, dtype, done)
        out = t if out is None else done(Add(out, t))
    const = lin.const
    if out is None and neg:
        if const > 0:
            out, const = IntImm(dtype, const), 0
        else:
            a, c = neg.pop(0)
            out = done(Mul(a, IntImm(dtype, -c)))
    for a, c in neg:
        out = done(Sub(out, _term(a, c, dtype, done)))
    if out is None:
        return IntImm(dtype, const)
    if const > 0:
        out = done(Add(out, IntImm(dtype, const)))
    elif const < 0:
        out = done(Sub(out, IntImm(dtype, -const)))
    return out

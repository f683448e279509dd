"""Simplifier rules for integer comparisons and boolean logic.

A comparison of integers is turned into questions "is ``D <= 0``?" about linear forms
``D`` (``a < b`` is ``a - b + 1 <= 0``) and decided from bounds and from the
analyzer's facts (constraint scopes, symbolic loop ranges).  Undecided comparisons are
normalised when that makes them smaller: ``i*4 + 3 < 16`` → ``i < 4``.
``and``/``or`` of two comparisons are decided when one implies the other or its
negation.  ``as_facts`` turns an assumed condition into such linear facts.
"""

from __future__ import annotations

import math

from ember.ir import EQ, GE, GT, LE, LT, NE, And, IntImm, Not, Or, PrimExpr
from ember.runtime.dtype import DataType

from .linear import Linear, is_int_scalar, to_expr

__all__ = ["compare_linear", "as_facts", "logic_entailment", "le0_forms"]

_BOOL = DataType("bool")
_TRUE = IntImm(_BOOL, 1)
_FALSE = IntImm(_BOOL, 0)
_ONE = Linear({}, 1)


def le0_forms(s, e: PrimExpr) -> list[Linear] | None:
    """Linear forms whose all being ``<= 0`` is equivalent to the comparison ``e``."""
    cls = type(e)
    if cls not in (LT, LE, GT, GE, EQ) or not is_int_scalar(e.a.dtype):
        return None
    d = s.linear(e.a).plus(s.linear(e.b), -1)  # a - b
    if cls is LT:
        return [d.plus(_ONE)]
    if cls is LE:
        return [d]
    if cls is GT:
        return [d.scaled(-1).plus(_ONE)]
    if cls is GE:
        return [d.scaled(-1)]
    return [d, d.scaled(-1)]


def _negation(d: Linear) -> Linear:
    """``not (d <= 0)`` is ``-d + 1 <= 0`` on integers."""
    return d.scaled(-1).plus(_ONE)


def _decide(s, forms: list[Linear]):
    """True / False / None for the conjunction of ``form <= 0``."""
    if all(s.prove_le0(f) for f in forms):
        return True
    if any(s.prove_le0(_negation(f)) for f in forms):
        return False
    return None


def compare_linear(s, e) -> PrimExpr | None:
    """Decide or normalise an integer comparison."""
    forms = le0_forms(s, e)
    if forms is None:
        if type(e) is NE and is_int_scalar(e.a.dtype):
            r = compare_linear(s, EQ(e.a, e.b))
            if type(r) is IntImm:
                return IntImm(_BOOL, 1 - r.value)
            if type(r) is EQ:
                return NE(r.a, r.b)
        return None
    verdict = _decide(s, forms)
    if verdict is not None:
        return _TRUE if verdict else _FALSE
    cls = type(e)
    dtype = e.a.dtype
    if cls is EQ:
        d = forms[0]
        g = _gcd(d)
        if g and d.const % g:
            return _FALSE  # x*2 == 1 has no integer solution
        zero_product = _product_is_zero(d)
        return zero_product if zero_product is not None else _emit_eq(d, g, dtype)
    # every ordered comparison is ``d <= 0``; written back as LT when it was ``<`` or ``>``
    strict = cls in (LT, GT)
    d = _recombine(s, forms[0], dtype)
    dropped = _drop_bounded_remainder(s, d)
    if dropped is not None:
        d = dropped
    divided = _div_bound(s, d)
    if divided is not None:
        d = divided
    d = _drop_minmax_side(s, d)
    at_bound = _mod_at_its_bound(s, d, strict)
    if at_bound is not None:
        return at_bound
    return _emit_ordered(d, strict, dtype)


def _recombine(s, d: Linear, dtype) -> Linear:
    """``(x // c) * c - x`` → ``-(x % c)`` inside the compared difference, whenever that
    does not make it longer (``(x + 2) // 4 * 4 >= x`` → ``(x + 2) % 4 <= 2``)."""
    from ember.ir import Div, FloorDiv, FloorMod, Mod

    for key, (atom, coeff) in d.terms.items():
        if type(atom) not in (FloorDiv, Div) or type(atom.b) is not IntImm or atom.b.value <= 0:
            continue
        c = atom.b.value
        if coeff % c:
            continue
        k = -coeff // c  # the term is -k*c*q, and k*n - k*c*q == k*(n mod c)
        mod = s.visit((FloorMod if type(atom) is FloorDiv else Mod)(atom.a, atom.b))
        terms = {}
        for other, t in d.terms.items():
            if other == key:
                terms[s.keys.key(mod)] = (mod, k)
            else:
                terms[other] = t
        trial = Linear(terms, d.const).plus(s.linear(atom.a), -k)
        if trial.size() <= d.size():
            return _recombine(s, trial, dtype)
    return d


def _drop_minmax_side(s, d: Linear) -> Linear:
    """``c*m(a, b) + r <= 0`` with one ``min``/``max`` term (c = ±1): when the condition on
    one side is decided, the comparison is the one on the other side alone
    (``min(x, 11) < 10`` → ``x < 10``, ``x + 1 < max(8, x)`` → ``x < 7``)."""
    from ember.ir import Max, Min

    found = [(k, a, c) for k, (a, c) in d.terms.items() if type(a) in (Min, Max) and c in (1, -1)]
    if len(found) != 1:
        return d
    key, atom, coeff = found[0]
    rest = Linear({k: t for k, t in d.terms.items() if k != key}, d.const)
    # each side's own condition: coeff*side + rest <= 0
    conds = [s.linear(side).scaled(coeff).plus(rest) for side in (atom.a, atom.b)]
    # min with +1 / max with -1: the condition holds when either side's does (an "or");
    # max with +1 / min with -1: when both do (an "and")
    either = (type(atom) is Min) == (coeff == 1)
    for keep, other in ((0, 1), (1, 0)):
        if either and s.prove_le0(_negation(conds[other])):
            return conds[keep]  # the other side can never satisfy it
        if not either and s.prove_le0(conds[other]):
            return conds[keep]  # the other side always satisfies it
    return d


def _mod_at_its_bound(s, d: Linear, strict: bool) -> PrimExpr | None:
    """``x % c <= 0`` is ``x % c == 0``: a floor-mod compared with its least value."""
    from ember.ir import FloorMod

    if strict or len(d.terms) != 1:
        return None
    (atom, coeff), = d.terms.values()
    if type(atom) is not FloorMod or coeff != 1 or d.const != 0 or s.bound(atom)[0] != 0:
        return None
    return EQ(atom, IntImm(atom.dtype, 0))


def _product_is_zero(d: Linear) -> PrimExpr | None:
    """``x * y == 0`` is ``x == 0 || y == 0``."""
    from ember.ir import Mul

    if len(d.terms) != 1 or d.const != 0:
        return None
    (atom, _), = d.terms.values()
    if type(atom) is not Mul:
        return None
    zero = IntImm(atom.dtype, 0)
    return Or(EQ(atom.a, zero), EQ(atom.b, zero))


def _div_bound(s, d: Linear) -> Linear | None:
    """``x // c <= k`` (and truncating ``x / c``) as a bound on ``x`` itself: the form
    ``±(n / c) + k <= 0`` with one division atom by a positive constant c."""
    from ember.ir import Div, FloorDiv

    if len(d.terms) != 1:
        return None
    (atom, coeff), = d.terms.values()
    if type(atom) not in (FloorDiv, Div) or type(atom.b) is not IntImm or atom.b.value <= 0:
        return None
    if coeff not in (1, -1) or not is_int_scalar(atom.a.dtype):
        return None
    c, k = atom.b.value, -d.const * coeff  # coeff=1: q <= k;  coeff=-1: q >= k
    num = s.linear(atom.a)
    if type(atom) is FloorDiv:
        if coeff == 1:  # q <= k  ⇔  n <= k*c + c - 1
            return num.plus(Linear({}, -(k * c + c - 1)))
        return num.scaled(-1).plus(Linear({}, k * c))  # q >= k  ⇔  n >= k*c
    if coeff == 1:  # trunc: q <= k  ⇔  n <= k*c + c - 1 (k >= 0), n <= k*c (k < 0)
        return num.plus(Linear({}, -(k * c + c - 1 if k >= 0 else k * c)))
    # q >= k  ⇔  n >= k*c (k > 0), n >= (k - 1)*c + 1 (k <= 0)
    return num.scaled(-1).plus(Linear({}, k * c if k > 0 else (k - 1) * c + 1))


def _drop_bounded_remainder(s, d: Linear) -> Linear | None:
    """``G*X + r + k <= 0`` does not depend on the small term r when G*X, a multiple of G, is
    on the same side of the bound for every r: with ``0 <= r < G`` and ``-k ≡ G-1 (mod G)``,
    or with ``-G < r <= 0`` and ``-k ≡ 0 (mod G)``; it is then ``G*X <= G*floor(-k/G)``
    (``x*8 + y < 16`` with ``0 <= y < 8`` is ``x < 2``)."""
    if len(d.terms) < 2:
        return None
    for key, (atom, c) in d.terms.items():
        g = 0
        for other, (_, oc) in d.terms.items():
            if other != key:
                g = math.gcd(g, oc)
        if g <= 1:
            continue
        lo, hi = s.bound(atom)
        lo, hi = sorted((lo * c, hi * c))
        below = lo >= 0 and hi <= g - 1 and (-d.const) % g == g - 1
        above = lo >= -(g - 1) and hi <= 0 and (-d.const) % g == 0
        if below or above:
            rest = Linear({k: t for k, t in d.terms.items() if k != key}, 0)
            return rest.plus(Linear({}, -g * ((-d.const) // g)))
    return None


def _gcd(lin: Linear) -> int:
    g = 0
    for _, c in lin.terms.values():
        g = math.gcd(g, c)
    return g


def _emit_ordered(d: Linear, strict: bool, dtype) -> PrimExpr:
    """``d <= 0`` with the terms' common factor divided out, written as TVM's rewrite
    simplifier writes comparisons: ``<`` when ``strict`` else ``<=``, never ``>``/``>=``."""
    g = _gcd(d) or 1
    k = -((-d.const) // g)  # g*T + c <= 0  ⇔  T + ceil(c/g) <= 0
    if strict:
        k -= 1  # T + k <= 0  ⇔  T + k - 1 < 0
    body = Linear({key: (a, c // g) for key, (a, c) in d.terms.items()}, k)
    return _emit_sides(LT if strict else LE, body, DataType(dtype))


def _emit_eq(d: Linear, g: int, dtype) -> PrimExpr:
    """``d == 0`` divided by the common factor, with a positive leading term."""
    g = g or 1
    if d.terms and all(c < 0 for _, c in d.terms.values()):
        g = -g
    body = Linear({key: (a, c // g) for key, (a, c) in d.terms.items()}, d.const // g)
    return _emit_sides(EQ, body, DataType(dtype))


def _emit_sides(op, body: Linear, dtype) -> PrimExpr:
    """``body op 0`` as ``P op N``: terms with positive coefficients on the left, the
    others on the right; the constant goes alone to an empty side, else to the side
    where it is positive (``x + 5 < y``, ``x < y + 5``, ``99 < x``, ``x <= 1``)."""
    pos = Linear({k: t for k, t in body.terms.items() if t[1] > 0}, 0)
    neg = Linear({k: (a, -c) for k, (a, c) in body.terms.items() if c < 0}, 0)
    k = body.const  # pos + k op neg
    if pos.terms and neg.terms and ((op is LT and k == -1) or (op is LE and k == 1)):
        op, k = (LE, 0) if op is LT else (LT, 0)  # x < y + 1 is x <= y; x + 1 <= y is x < y
    if not pos.terms:
        left, right = IntImm(dtype, k), to_expr(neg, dtype)
    elif not neg.terms:
        left, right = to_expr(pos, dtype), IntImm(dtype, -k)
    elif k >= 0:
        left, right = to_expr(pos.plus(Linear({}, k)), dtype), to_expr(neg, dtype)
    else:
        left, right = to_expr(pos, dtype), to_expr(neg.plus(Linear({}, -k)), dtype)
    return op(left, right)


def as_facts(s, cond: PrimExpr) -> tuple[list[Linear], list[PrimExpr]]:
    """Split an assumed condition into linear facts (``F <= 0``) and opaque conditions."""
    linear, opaque = [], []
    stack = [cond]
    while stack:
        c = stack.pop()
        if type(c) is And:
            stack += [c.a, c.b]
            continue
        if type(c) is Not and type(c.a) is Or:
            stack += [Not(c.a.a), Not(c.a.b)]
            continue
        if type(c) is Not and type(c.a) in _NEGATE:
            c = _NEGATE[type(c.a)](c.a.a, c.a.b)
        forms = le0_forms(s, c)
        if forms is not None:
            linear += forms
        else:
            opaque.append(c)
    return linear, opaque


_NEGATE = {LT: GE, LE: GT, GT: LE, GE: LT, EQ: NE, NE: EQ}


def _implies(s, p: list[Linear], q: list[Linear]) -> bool:
    """Does the conjunction of ``p`` (each ``<= 0``) imply that of ``q``?"""
    for f in q:
        if s.lin_bound(f)[1] <= 0:
            continue
        if not any(_implied_by(s, f, g) for g in p):
            return False
    return True


def _implied_by(s, f: Linear, g: Linear) -> bool:
    from .simplifier import _fact_scale

    k = _fact_scale(f, g)
    return bool(k) and s.lin_bound(f.plus(g, -k))[1] <= 0


def logic_entailment(s, e) -> PrimExpr | None:
    """``and``/``or`` of comparisons where one side implies the other or its negation."""
    fa, fb = le0_forms(s, e.a), le0_forms(s, e.b)
    if fa is None or fb is None:
        return None
    if type(e) is And:
        if _implies(s, fa, fb):
            return e.a
        if _implies(s, fb, fa):
            return e.b
        if len(fb) == 1 and _implies(s, fa, [_negation(fb[0])]):
            return _FALSE
        return None
    # Or
    if _implies(s, fa, fb):
        return e.b
    if _implies(s, fb, fa):
        return e.a
    if len(fa) == 1 and _implies(s, [_negation(fa[0])], fb):
        return _TRUE
    return None


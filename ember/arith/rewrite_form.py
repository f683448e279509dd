"""How ``Analyzer.rewrite_simplify`` writes its result: TVM's rewrite-simplifier spelling.

The simplifier builds integer sums in one canonical form (``x - 10``, ``y * -1``), which
``simplify`` and ``canonical_simplify`` return as is, like TVM's canonical simplifier.
TVM's rewrite simplifier spells the same values differently, and code written against
``rewrite_simplify`` sees that spelling: a subtracted constant is added negated
(``x + -10``) and a negated term is subtracted from zero (``0 - y``).  This pass only
re-spells; the value never changes.
"""

from __future__ import annotations

from ember.ir import Add, IntImm, Mul, Node, PrimExpr, Sub, Var, fields_of, replace

__all__ = ["to_rewrite_form"]


def to_rewrite_form(e: PrimExpr) -> PrimExpr:
    """``e`` with ``a - c`` as ``a + -c`` and ``a * -1`` as ``0 - a`` (integers)."""
    return _visit(e, {})


def _visit(e, memo: dict):
    if not isinstance(e, Node) or isinstance(e, Var | IntImm):
        return e
    hit = memo.get(id(e))
    if hit is not None:
        return hit[1]
    changes = {}
    for name in fields_of(type(e)):
        v = getattr(e, name)
        if isinstance(v, PrimExpr):
            nv = _visit(v, memo)
            if nv is not v:
                changes[name] = nv
        elif isinstance(v, tuple) and any(isinstance(x, PrimExpr) for x in v):
            nv = tuple(_visit(x, memo) if isinstance(x, PrimExpr) else x for x in v)
            if any(a is not b for a, b in zip(nv, v)):
                changes[name] = nv
    out = replace(e, **changes) if changes else e
    out = _respell(out)
    memo[id(e)] = (e, out)
    return out


def _respell(e):
    cls = type(e)
    if cls is Sub and type(e.b) is IntImm and e.dtype.is_integer and e.dtype.is_scalar and e.b.value > 0:
        return Add(e.a, IntImm(e.b.dtype, -e.b.value))
    if cls is Mul and type(e.b) is IntImm and e.b.value == -1 and e.dtype.is_integer and e.dtype.is_scalar:
        return Sub(IntImm(e.dtype, 0), e.a)
    return e

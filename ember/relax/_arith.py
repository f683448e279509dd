"""Small arithmetic helpers for shape reasoning: prove equalities of PrimExprs, simplify.

Proofs go through ``ember.arith.Analyzer`` (one shared instance, nothing bound in it);
a simplifier failure leaves the expression as it was, so inference never breaks on it.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import IntImm, PrimExpr, as_expr, structural_equal

__all__ = ["simplify", "prove_equal", "prove_not_equal", "as_int", "int64"]


_SHARED = Analyzer()  # shape reasoning binds nothing, so one instance serves every call


def simplify(expr: PrimExpr) -> PrimExpr:
    """``expr`` simplified by the arith Analyzer (unchanged if the simplifier fails)."""
    if isinstance(expr, IntImm):
        return expr
    try:
        return _SHARED.simplify(expr)
    except Exception:  # noqa: BLE001 - a failing simplifier must not break inference
        return expr


def as_int(expr) -> int | None:
    """The integer value of a constant expression, or None when it is symbolic."""
    if isinstance(expr, int):
        return expr
    if isinstance(expr, IntImm):
        return expr.value
    expr = simplify(expr)
    return expr.value if isinstance(expr, IntImm) else None


def prove_equal(a, b) -> bool:
    """True when ``a == b`` can be proven (same object, equal constants, equal after simplify)."""
    if a is b:
        return True
    ia, ib = as_int(a), as_int(b)
    if ia is not None and ib is not None:
        return ia == ib
    if ia is not None or ib is not None:
        return as_int(simplify(as_expr(a) - as_expr(b))) == 0
    if structural_equal(a, b, map_free_vars=False):
        return True
    diff = as_int(simplify(as_expr(a) - as_expr(b)))
    return diff == 0


def prove_not_equal(a, b) -> bool:
    """True when ``a != b`` is certain (two different constants)."""
    ia, ib = as_int(a), as_int(b)
    return ia is not None and ib is not None and ia != ib


def int64(value) -> PrimExpr:
    """A shape value as a PrimExpr: Python ints become int64 constants."""
    if isinstance(value, PrimExpr):
        return value
    if hasattr(value, "item") and not isinstance(value, int):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"shape values must be ints or PrimExprs, got {type(value).__name__}: {value!r}")
    return IntImm(_I64, value)


from ember.runtime.dtype import DataType  # noqa: E402

_I64 = DataType("int64")

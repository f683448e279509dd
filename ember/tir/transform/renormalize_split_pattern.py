"""RenormalizeSplitPattern: put split index patterns into the form later passes expect.

Loop splitting and fusing leave index expressions such as ``(x % 128) // 32``; the
canonical simplifier prefers them as ``(x // 32) % 4``, which exposes the divisions
that vectorisation and storage analyses look for.  Rewritten, for positive constants:

* ``(x % c1) // c2``  →  ``(x // c2) % (c1 // c2)``   when ``c2`` divides ``c1``;
* ``(x // c1) // c2``  →  ``x // (c1 * c2)``.

Each rewritten expression is then simplified.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import FloorDiv, FloorMod, IntImm, const
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator
from ._common import make_pass

__all__ = ["renormalize_split_pattern", "RenormalizeSplitPattern"]


def _positive(x) -> int | None:
    return x.value if isinstance(x, IntImm) and x.value > 0 else None


def _rewrite(expr: FloorDiv):
    c2 = _positive(expr.b)
    if c2 is None:
        return None
    inner = expr.a
    if isinstance(inner, FloorMod):
        c1 = _positive(inner.b)
        if c1 is not None and c1 % c2 == 0:
            return FloorMod(FloorDiv(inner.a, expr.b), const(c1 // c2, expr.b.dtype))
    if isinstance(inner, FloorDiv):
        c1 = _positive(inner.b)
        if c1 is not None:
            return FloorDiv(inner.a, const(c1 * c2, expr.b.dtype))
    return None


class _Renormalizer(IRMutator):
    def __init__(self):
        super().__init__()
        self.analyzer = Analyzer()

    def visit_FloorDiv(self, expr: FloorDiv):
        expr = self.generic_visit(expr)
        out = _rewrite(expr)
        if out is None:
            return expr
        return self.analyzer.simplify(self.visit(out))


def renormalize_split_pattern(func: PrimFunc) -> PrimFunc:
    """``func`` with split index patterns renormalized."""
    body = _Renormalizer().visit(func.body)
    return func if body is func.body else func.with_body(body)


def RenormalizeSplitPattern() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`renormalize_split_pattern`."""
    return make_pass(renormalize_split_pattern, "tir.RenormalizeSplitPattern")

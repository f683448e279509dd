"""Simplify: simplify every expression with ``ember.arith.Analyzer``, knowing loop ranges.

Each loop variable is bound to its ``[min, min + extent)`` range before its body is
simplified, and each ``if`` branch is simplified under its condition (the analyzer's
``constraint_scope``), so bound checks such as ``i < n`` that always hold vanish; an
``if`` whose condition becomes constant is replaced by its branch.  Unsigned and narrow
integer values (which wrap around) are not rewritten, only the indices inside them.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import IntImm, Not, PrimExpr, Range, Var, replace
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator, substitute
from ..stmt import For, IfThenElse
from ._common import logger, make_pass, no_op

__all__ = ["simplify", "Simplify", "make_analyzer"]


def make_analyzer() -> Analyzer:
    """A new ``ember.arith.Analyzer``."""
    return Analyzer()


def _wraps_around(dtype) -> bool:
    """Unsigned and narrow integer data wrap around on overflow (as numpy's do), while the
    analyzer's rewrite rules assume index arithmetic that never overflows: for uint8
    ``max(a + b, b)`` is not ``a + b``.  Such expressions are left as written."""
    return (dtype.is_uint or dtype.is_int and dtype.bits < 32) and not dtype.is_bool


class _Simplifier(IRMutator):
    def __init__(self, analyzer):
        super().__init__()
        self.analyzer = analyzer

    def visit(self, x):
        if isinstance(x, PrimExpr) and not isinstance(x, Var):
            if _wraps_around(x.dtype):  # only its (index) sub-expressions are simplified
                return super().visit(x)
            return self.analyzer.simplify(x)
        return super().visit(x)

    def visit_Buffer(self, buf):
        return buf  # buffer shapes are declarations, left as written

    def visit_For(self, loop: For):
        lo, extent = self.visit(loop.min), self.visit(loop.extent)
        try:
            self.analyzer.bind(loop.loop_var, Range(lo, extent))
        except ValueError:  # this Var already names another loop: give this loop its own
            fresh = Var(loop.loop_var.name, loop.loop_var.dtype)
            logger.debug("Simplify: loop var %s reused by two loops; renamed", fresh.name)
            loop = replace(loop, loop_var=fresh, body=substitute(loop.body, {loop.loop_var: fresh}))
            self.analyzer.bind(fresh, Range(lo, extent))
        return replace(loop, min=lo, extent=extent, body=self.visit(loop.body))

    def visit_IfThenElse(self, stmt: IfThenElse):
        cond = self.visit(stmt.condition)
        if isinstance(cond, IntImm):
            branch = stmt.then_case if cond.value else stmt.else_case
            return no_op() if branch is None else self.visit(branch)
        with self.analyzer.constraint_scope(cond):
            then_case = self.visit(stmt.then_case)
        else_case = stmt.else_case
        if else_case is not None:
            with self.analyzer.constraint_scope(Not(cond)):
                else_case = self.visit(else_case)
        return replace(stmt, condition=cond, then_case=then_case, else_case=else_case)


def simplify(func: PrimFunc) -> PrimFunc:
    """Simplify ``func``'s expressions, knowing loop ranges and branch conditions."""
    return func.with_body(_Simplifier(make_analyzer()).visit(func.body))


def Simplify() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`simplify`."""
    return make_pass(simplify, "tir.Simplify")

"""ReduceBranchingThroughOvercompute: drop an ``if`` when running its then-branch always is
harmless.

``if c: S1 else: S2`` becomes ``S1`` when, assuming ``not c``, ``S1`` simplified and with
its no-ops removed is the same statement as ``S2`` (or nothing, without an else-branch):
e.g. ``if i > 0: A[0] = A[0] + i * i`` (at ``i == 0`` the store writes ``A[0]`` into
itself), or ``if i < 14: {A[i] = 1; evaluate(0)} else: A[i] = 1``.  Conditions that read
memory are left alone.  TVM's ``use_dataflow_analysis`` option (overcompute whose extra
writes a later statement overwrites) is accepted but not used yet.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import And, LE, LT, Not, structural_equal
from ember.transform import Pass

from ..buffer import BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator, collect
from ..stmt import For, IfThenElse
from ._common import make_pass, no_op

__all__ = ["reduce_branching_through_overcompute", "ReduceBranchingThroughOvercompute"]


class _Reducer(IRMutator):
    def __init__(self):
        super().__init__()
        self.analyzer = Analyzer()

    def visit_For(self, loop: For):
        if not loop.loop_var.dtype.is_int:
            return self.generic_visit(loop)
        bound = And(LE(loop.min, loop.loop_var), LT(loop.loop_var, loop.min + loop.extent))
        with self.analyzer.constraint_scope(bound):
            return self.generic_visit(loop)

    def visit_IfThenElse(self, stmt: IfThenElse):
        stmt = self.generic_visit(stmt)
        cond = stmt.condition
        if not cond.dtype.is_bool or collect(cond, lambda x: isinstance(x, BufferLoad)):
            return stmt
        with self.analyzer.constraint_scope(Not(cond)):
            forced = self._normalized(stmt.then_case)
            wanted = self._normalized(stmt.else_case if stmt.else_case is not None else no_op())
        if structural_equal(forced, wanted, map_free_vars=False):
            return stmt.then_case
        return stmt

    def _normalized(self, stmt):
        from .remove_no_op import _NoOpRemover
        from .simplify import _Simplifier

        out = _NoOpRemover().visit(_Simplifier(self.analyzer).visit(stmt))
        return out if out is not None else no_op()


def reduce_branching_through_overcompute(func: PrimFunc) -> PrimFunc:
    """Replace ``if``s whose then-branch may always run by that branch (module docstring)."""
    return func.with_body(_Reducer().visit(func.body))


def ReduceBranchingThroughOvercompute() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`reduce_branching_through_overcompute`."""
    return make_pass(reduce_branching_through_overcompute, "tir.ReduceBranchingThroughOvercompute")

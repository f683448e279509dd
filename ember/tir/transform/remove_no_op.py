"""RemoveNoOp: delete statements that do nothing.

Removed: ``Evaluate`` of a constant, loops with a constant extent ≤ 0 or an empty
body, ``if`` with a constant condition (replaced by the taken branch) or empty
branches, ``LetStmt`` / ``Allocate`` / ``AttrStmt`` around an empty body, stores of
a buffer element into itself (``A[i] = A[i]``), and empty entries of sequences.
An entirely empty function body becomes ``Evaluate(0)``.
"""

from __future__ import annotations

from ember.ir import IntImm, replace, structural_equal
from ember.transform import Pass

from ..buffer import BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator
from ..stmt import IfThenElse, SeqStmt, seq
from ._common import as_const_int, is_no_op, make_pass, no_op

__all__ = ["remove_no_op", "RemoveNoOp"]


class _NoOpRemover(IRMutator):
    def visit_SeqStmt(self, stmt: SeqStmt):
        kept = [s for s in (self.visit(s) for s in stmt.seq) if not is_no_op(s)]
        if len(kept) == len(stmt.seq) and all(a is b for a, b in zip(kept, stmt.seq)):
            return stmt
        return seq(*kept) or no_op()

    def visit_For(self, loop):
        extent = as_const_int(loop.extent)
        if extent is not None and extent <= 0:
            return no_op()
        loop = self.generic_visit(loop)
        return no_op() if is_no_op(loop.body) else loop

    def visit_IfThenElse(self, stmt: IfThenElse):
        stmt = self.generic_visit(stmt)
        cond = stmt.condition
        if isinstance(cond, IntImm):
            branch = stmt.then_case if cond.value else stmt.else_case
            return no_op() if branch is None else branch
        else_empty = is_no_op(stmt.else_case)
        if is_no_op(stmt.then_case) and else_empty:
            return no_op()
        if else_empty and stmt.else_case is not None:
            return replace(stmt, else_case=None)
        return stmt

    def _wrapper(self, stmt):
        stmt = self.generic_visit(stmt)
        return no_op() if is_no_op(stmt.body) else stmt

    visit_LetStmt = visit_Allocate = visit_AttrStmt = visit_DeclBuffer = _wrapper

    def visit_BufferStore(self, store):
        store = self.generic_visit(store)
        value = store.value
        if (
            isinstance(value, BufferLoad)
            and value.buffer is store.buffer
            and structural_equal(value.indices, store.indices, map_free_vars=False)
        ):
            return no_op()
        return store


def remove_no_op(func: PrimFunc) -> PrimFunc:
    """Delete the statements of ``func`` that have no effect."""
    body = _NoOpRemover().visit(func.body)
    return func.with_body(body if body is not None else no_op())


def RemoveNoOp() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`remove_no_op`."""
    return make_pass(remove_no_op, "tir.RemoveNoOp")

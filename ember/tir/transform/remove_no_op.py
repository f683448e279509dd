"""RemoveNoOp: delete statements that do nothing.

Removed: ``Evaluate`` of an expression without side effects (a constant, arithmetic,
loads, pure intrinsics), loops with an extent provably ≤ 0 or an empty body, ``if``
whose then-branch is empty (the condition is negated), ``if`` with a constant
condition (replaced by the taken branch) or empty branches, ``LetStmt`` /
``Allocate`` / ``AttrStmt`` around an empty body, stores of a buffer element into
itself (``A[i] = A[i]``), and empty entries of sequences.
An entirely empty function body becomes ``Evaluate(0)``.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import IntImm, Not, Range, replace, structural_equal
from ember.transform import Pass

from ..buffer import BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator, collect
from ..stmt import Evaluate, IfThenElse, SeqStmt, seq
from ._common import as_const_int, call_op_name, is_no_op, make_pass, no_op

__all__ = ["remove_no_op", "RemoveNoOp"]


class _NoOpRemover(IRMutator):
    def visit_SeqStmt(self, stmt: SeqStmt):
        items = [self.visit(s) for s in stmt.seq]
        if self.dataflow:
            from ember.tir.transform.simplify_buffer_facts import BufferFacts

            from .remove_no_op_dataflow import remove_dead_writes

            items = remove_dead_writes(items, BufferFacts(self.analyzer))
        kept = [s for s in items if not is_no_op(s)]
        if len(kept) == len(stmt.seq) and all(a is b for a, b in zip(kept, stmt.seq)):
            return stmt
        return seq(*kept) or no_op()

    def __init__(self, dataflow: bool = False):
        super().__init__()
        self.analyzer = Analyzer()
        self.dataflow = dataflow

    def visit_For(self, loop):
        extent = as_const_int(loop.extent)
        if extent is not None and extent <= 0:
            return no_op()
        if extent is None and self.analyzer.can_prove(loop.extent <= 0):
            return no_op()  # e.g. T.serial(i - 20) inside a loop where i < 16
        try:
            self.analyzer.bind(loop.loop_var, Range(loop.min, loop.extent))
        except ValueError:  # a Var naming two loops: its range is not recorded
            pass
        loop = self.generic_visit(loop)
        return no_op() if is_no_op(loop.body) else loop

    def visit_Evaluate(self, stmt):
        # an expression with no side effect computes nothing anyone sees
        return no_op() if not _has_side_effect(stmt.value) else stmt

    def visit_IfThenElse(self, stmt: IfThenElse):
        cond = self.visit(stmt.condition)
        if collect(cond, lambda x: isinstance(x, BufferLoad)) or not cond.dtype.is_bool:
            stmt = self.generic_visit(stmt)
        else:  # each branch knows its condition (A[i] = A[0] under i == 0 writes in place)
            with self.analyzer.constraint_scope(cond):
                then_case = self.visit(stmt.then_case)
            else_case = stmt.else_case
            if else_case is not None:
                with self.analyzer.constraint_scope(Not(cond)):
                    else_case = self.visit(else_case)
            stmt = replace(stmt, condition=cond, then_case=then_case, else_case=else_case)
        cond = stmt.condition
        if isinstance(cond, IntImm):
            branch = stmt.then_case if cond.value else stmt.else_case
            return no_op() if branch is None else branch
        else_empty = is_no_op(stmt.else_case)
        if is_no_op(stmt.then_case) and else_empty:
            return no_op()
        if is_no_op(stmt.then_case):  # only the else branch does something
            return IfThenElse(Not(cond), stmt.else_case, None)
        if else_empty and stmt.else_case is not None:
            return replace(stmt, else_case=None)
        return stmt

    def _wrapper(self, stmt):
        stmt = self.generic_visit(stmt)
        return no_op() if is_no_op(stmt.body) else stmt

    visit_Allocate = visit_AttrStmt = visit_DeclBuffer = _wrapper

    def visit_LetStmt(self, let):
        let = self.generic_visit(let)
        if not is_no_op(let.body):
            return let
        # the binding is unused, but computing its value may still do something
        return Evaluate(let.value) if _has_side_effect(let.value) else no_op()

    def visit_BufferStore(self, store):
        store = self.generic_visit(store)
        value = store.value
        if (
            isinstance(value, BufferLoad)
            and value.buffer is store.buffer
            and len(value.indices) == len(store.indices)
            and (structural_equal(value.indices, store.indices, map_free_vars=False)
                 or all(a.dtype.lanes == 1 and self.analyzer.can_prove_equal(a, b)
                        for a, b in zip(value.indices, store.indices)))
        ):
            return no_op()
        return store


_PURE_CALLS = {"tir.likely", "tir.if_then_else", "tir.reinterpret", "tir.bitwise_not",
               "tir.bitwise_and", "tir.bitwise_or", "tir.bitwise_xor", "tir.shift_left",
               "tir.shift_right"}


def _has_side_effect(expr) -> bool:
    """True unless ``expr`` only computes a value (arithmetic, loads, pure intrinsics)."""
    from ember.tir.op import BINARY_MATH, UNARY_MATH

    def impure(x) -> bool:
        name = call_op_name(x)
        if name is None:
            return False
        return name not in _PURE_CALLS and not (
            name.startswith("tir.") and name[4:] in (*UNARY_MATH, *BINARY_MATH))

    return bool(collect(expr, impure))


def _dataflow_option() -> bool:
    from ember.transform import PassContext

    cfg = PassContext.current().config.get("tir.RemoveNoOp") or {}
    value = cfg.get("use_dataflow_analysis", False) if isinstance(cfg, dict) else \
        getattr(cfg, "use_dataflow_analysis", False)
    return bool(value)


def remove_no_op(func: PrimFunc) -> PrimFunc:
    """Delete the statements of ``func`` that have no effect."""
    body = _NoOpRemover(_dataflow_option()).visit(func.body)
    return func.with_body(body if body is not None else no_op())


def RemoveNoOp() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`remove_no_op`."""
    return make_pass(remove_no_op, "tir.RemoveNoOp")

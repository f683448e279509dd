"""RemoveAssume: drop ``T.assume(cond)`` statements once passes no longer need them.

``tir.assume`` tells the simplifier a fact; it has no run-time meaning, so code
generators never see it.  Statements left empty (a loop of assumptions) are then
removed by RemoveNoOp.
"""

from __future__ import annotations

from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator
from ..stmt import Evaluate
from ._common import call_op_name, make_pass, no_op
from .remove_no_op import remove_no_op

__all__ = ["remove_assume", "RemoveAssume"]


def _is_assume(expr) -> bool:
    return call_op_name(expr) == "tir.assume"


class _AssumeRemover(IRMutator):
    def visit_Evaluate(self, stmt: Evaluate):
        return no_op() if _is_assume(stmt.value) else stmt


def remove_assume(func: PrimFunc) -> PrimFunc:
    """``func`` without its ``T.assume`` statements."""
    body = _AssumeRemover().visit(func.body)
    if body is func.body:
        return func
    return remove_no_op(func.with_body(body))


def RemoveAssume() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`remove_assume`."""
    return make_pass(remove_assume, "tir.RemoveAssume")

"""Helpers shared by the lowering passes: pass factories, constants, the no-op statement."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ember.error import TVMError
from ember.ir import IntImm, PrimExpr, const
from ember.transform import Pass, prim_func_pass

from ..function import PrimFunc
from ..stmt import Evaluate, SeqStmt, Stmt

__all__ = ["logger", "make_pass", "as_const_int", "is_const", "no_op", "is_no_op", "TransformError",
           "call_op_name"]

logger = logging.getLogger("ember.tir.transform")


class TransformError(TVMError, ValueError):
    """A pass refuses its input: the IR breaks a precondition the pass states."""


def make_pass(fn: Callable[[PrimFunc], PrimFunc], name: str, opt_level: int = 0) -> Pass:
    """Wrap a ``PrimFunc → PrimFunc`` function as a named module pass over PrimFuncs."""
    return prim_func_pass(lambda func, mod, ctx: fn(func), opt_level=opt_level, name=name)


def as_const_int(x) -> int | None:
    """The value of an integer (or bool) constant, else None."""
    if isinstance(x, IntImm):
        return int(x.value)
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    return None


def is_const(x, value: int) -> bool:
    return as_const_int(x) == value


def no_op() -> Stmt:
    """The canonical empty statement: ``Evaluate(0)``."""
    return Evaluate(const(0, "int32"))


def is_no_op(stmt: Stmt | None) -> bool:
    """True for None, ``Evaluate(<constant>)`` and sequences of those."""
    if stmt is None:
        return True
    if isinstance(stmt, Evaluate):
        return isinstance(stmt.value, IntImm) or (
            isinstance(stmt.value, PrimExpr) and type(stmt.value).__name__ == "FloatImm"
        )
    if isinstance(stmt, SeqStmt):
        return all(is_no_op(s) for s in stmt.seq)
    return False


def call_op_name(expr) -> str | None:
    """The operator name of a ``Call`` (``"tir.assume"``), else None.  ``Call`` may hold the
    op by name (``tir.Call("handle", "tir.tvm_thread_context", ...)``) or as an ``Op``."""
    from ember.ir import Call

    if not isinstance(expr, Call):
        return None
    op = expr.op
    return op if isinstance(op, str) else getattr(op, "name", None)

"""RewriteUnsafeSelect: a ``Select`` whose branches may fault becomes ``if_then_else``.

``Select(c, t, f)`` evaluates both branches, so ``Select(i > 0, A[i - 1], 0)`` reads
``A[-1]`` when ``i == 0``.  When a branch reads memory or calls something impure, the
select is rewritten to the ``tir.if_then_else`` intrinsic, which evaluates only the
taken branch.  Selects with cheap, safe branches stay (they vectorise as blends).
"""

from __future__ import annotations

from ember.ir import Call, Op, Var
from ember.transform import Pass

from ..buffer import BufferLoad
from ..expr import Select
from ..function import PrimFunc
from ..functor import IRMutator, IRVisitor
from ._common import call_op_name, make_pass

__all__ = ["rewrite_unsafe_select", "RewriteUnsafeSelect", "is_unsafe_to_evaluate"]

# intrinsics with no side effect and no memory access: safe to evaluate speculatively
_SAFE_CALLS = {"tir.likely", "tir.shift_left", "tir.shift_right", "tir.bitwise_and",
               "tir.bitwise_or", "tir.bitwise_xor", "tir.bitwise_not", "tir.reinterpret"}


class _UnsafeFinder(IRVisitor):
    def __init__(self):
        self.unsafe = False

    def visit(self, x):
        if not self.unsafe:
            super().visit(x)

    def visit_BufferLoad(self, load: BufferLoad):
        self.unsafe = True

    def visit_Call(self, call: Call):
        name = call_op_name(call)
        if name == "tir.if_then_else":  # lazy: only its condition is always evaluated
            self.visit(call.args[0])
        elif name in _SAFE_CALLS or _is_pure_math(call):
            self.visit(call.args)
        else:
            self.unsafe = True

    def visit_Var(self, var: Var):
        pass


def _is_pure_math(call: Call) -> bool:
    from ember.tir.op import BINARY_MATH, UNARY_MATH

    name = call_op_name(call) or ""
    return name.startswith("tir.") and name[4:] in (*UNARY_MATH, *BINARY_MATH)


def is_unsafe_to_evaluate(expr) -> bool:
    """True when evaluating ``expr`` may read memory or have a side effect."""
    finder = _UnsafeFinder()
    finder.visit(expr)
    return finder.unsafe


class _SelectRewriter(IRMutator):
    def visit_Select(self, sel: Select):
        sel = self.generic_visit(sel)
        if is_unsafe_to_evaluate(sel.true_value) or is_unsafe_to_evaluate(sel.false_value):
            return Call(sel.dtype, Op.get("tir.if_then_else"),
                        (sel.condition, sel.true_value, sel.false_value))
        return sel


def rewrite_unsafe_select(func: PrimFunc) -> PrimFunc:
    """``func`` with unsafe selects made lazy (``if_then_else``)."""
    body = _SelectRewriter().visit(func.body)
    return func if body is func.body else func.with_body(body)


def RewriteUnsafeSelect() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`rewrite_unsafe_select`."""
    return make_pass(rewrite_unsafe_select, "tir.RewriteUnsafeSelect")

"""CombineContextCall: compute each device context once in host code.

``tir.tvm_thread_context(ctx)`` marks a context expression (e.g. a call fetching a
device's stream) that may be cached per thread.  Each distinct ``ctx`` becomes one
``LetStmt`` variable bound at the top of the function — or of the enclosing parallel
loop / ``thread_extent`` region, since every thread needs its own — and each use is
replaced by that variable.  Only host functions (``target`` attribute of a CPU kind)
are rewritten; device code keeps its calls.
"""

from __future__ import annotations

from ember.ir import Call, Var, structural_equal
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator
from ..stmt import AttrStmt, For, ForKind, LetStmt
from ._common import call_op_name, make_pass

__all__ = ["combine_context_call", "CombineContextCall"]

_PER_THREAD_KEYS = ("thread_extent", "coproc_uop_scope")


class _ContextCombiner(IRMutator):
    def __init__(self):
        super().__init__()
        self.cached: list[tuple[object, Var]] = []  # (context expression, its variable)

    def visit_Call(self, call: Call):
        if call_op_name(call) != "tir.tvm_thread_context":
            return self.generic_visit(call)
        ctx = self.visit(call.args[0])
        for expr, var in self.cached:
            if structural_equal(expr, ctx, map_free_vars=False):
                return var
        var = Var("ctx_cache_", ctx.dtype)
        self.cached.append((ctx, var))
        return var

    def in_own_scope(self, stmt):
        outer, self.cached = self.cached, []
        stmt = self.generic_visit(stmt)
        inner, self.cached = self.cached, outer
        return bind_contexts(inner, stmt)

    def visit_AttrStmt(self, stmt: AttrStmt):
        if stmt.attr_key in _PER_THREAD_KEYS:
            return self.in_own_scope(stmt)
        return self.generic_visit(stmt)

    def visit_For(self, loop: For):
        if loop.kind == ForKind.PARALLEL:
            return self.in_own_scope(loop)
        return self.generic_visit(loop)


def bind_contexts(cached, body):
    """``body`` inside one LetStmt per cached context, the first found outermost."""
    for ctx, var in reversed(cached):
        body = LetStmt(var, ctx, body)
    return body


def combine_context_call(func: PrimFunc) -> PrimFunc:
    """``func`` with its thread-context calls cached in variables (host functions only)."""
    target = func.attrs.get("target")
    if target is None or target.kind.device_type != 1:  # 1: kDLCPU
        return func
    combiner = _ContextCombiner()
    body = combiner.visit(func.body)
    if body is func.body:
        return func
    return func.with_body(bind_contexts(combiner.cached, body))


def CombineContextCall() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`combine_context_call`."""
    return make_pass(combine_context_call, "tir.CombineContextCall")

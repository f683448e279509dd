"""InlinePrivateFunctions: inline calls of a module's private PrimFuncs.

A call statement ``T.evaluate(Mod.sub(a, b))`` of a private PrimFunc (no
``global_symbol``) becomes the callee's body, each parameter bound to its argument by a
``LetStmt`` and every variable the body defines renewed (so two call sites stay SSA).
Callees that are kept: recursive ones, ones with a ``buffer_map`` or blocks (schedulable
TIR), and calls crossing a target boundary (caller and callee ``target`` differ: a
later pass turns those into device launches).  A private function no longer called is
removed from the module.
"""

from __future__ import annotations

import copy

from ember.ir import Call, GlobalVar, IRModule
from ember.transform import Pass, module_pass

from ..function import PrimFunc
from ..functor import IRMutator, collect
from ..stmt import BlockRealize, Evaluate, LetStmt
from ._fresh import copy_with_fresh_vars

__all__ = ["inline_private_functions", "InlinePrivateFunctions"]


def _callees(func: PrimFunc) -> set:
    return {c.op.name_hint for c in collect(func.body, lambda x: isinstance(x, Call)
                                            and isinstance(x.op, GlobalVar))}


def _inlinable(name: str, func) -> bool:
    return (isinstance(func, PrimFunc) and func.attrs.get("global_symbol") is None
            and not func.buffer_map and name not in _callees(func)
            and not collect(func.body, lambda x: isinstance(x, BlockRealize)))


class _Inliner(IRMutator):
    def __init__(self, callees: dict, caller: PrimFunc):
        super().__init__()
        self.callees, self.caller = callees, caller

    def visit_Evaluate(self, stmt: Evaluate):
        call = stmt.value
        if not (isinstance(call, Call) and isinstance(call.op, GlobalVar)):
            return self.generic_visit(stmt)
        callee = self.callees.get(call.op.name_hint)
        if callee is None or str(callee.attrs.get("target")) != str(self.caller.attrs.get("target")):
            return self.generic_visit(stmt)
        args = [self.visit(a) for a in call.args]
        fresh = {p: copy.copy(p) for p in callee.params}
        body = copy_with_fresh_vars(callee.body, fresh)
        for p, arg in reversed(list(zip(callee.params, args))):
            body = LetStmt(fresh[p], arg, body)
        return self.visit(body)


def inline_private_functions(mod: IRModule) -> IRModule:
    """``mod`` with calls of its private, inlinable PrimFuncs inlined."""
    callees = {gv.name_hint: f for gv, f in mod.functions.items() if _inlinable(gv.name_hint, f)}
    if not callees:
        return mod
    functions, changed = {}, False
    for gv, func in mod.functions.items():
        if isinstance(func, PrimFunc):
            body = _Inliner(callees, func).visit(func.body)
            if body is not func.body:
                func, changed = func.with_body(body), True
        functions[gv] = func
    if not changed:
        return mod
    still_called = set()
    for func in functions.values():
        if isinstance(func, PrimFunc):
            still_called |= _callees(func)
    kept = {gv: f for gv, f in functions.items()
            if gv.name_hint not in callees or gv.name_hint in still_called}
    return mod.with_functions(kept)


def InlinePrivateFunctions() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`inline_private_functions`."""
    return module_pass(lambda mod, ctx: inline_private_functions(mod), opt_level=0,
                       name="tir.InlinePrivateFunctions")

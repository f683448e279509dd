"""RemoveUnusedParameters: drop parameters a private function never reads.

Only private functions (no ``global_symbol``) whose every use is a direct call are changed,
so every call site can follow.  A dropped parameter whose struct info was the only source
of a symbolic dim the function still needs is replaced by an ``R.Prim(value=n)``
parameter, and callers pass that dim (known from the argument they used to pass).
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule
from ember.ir import Var as TirVar
from ember.tir.functor import post_order_visit
from ember.transform import Pass, module_pass

from ..analysis.symbolic_vars import definable_tir_vars_in_struct_info, tir_vars_in_struct_info
from ..analysis.vars import free_vars
from ..expr import Call, Function, PrimValue, ShapeExpr, Var
from ..expr_functor import ExprMutator, ExprVisitor
from ..struct_info import PrimStructInfo
from .canonicalize_bindings import _dim_pairs

__all__ = ["RemoveUnusedParameters"]


class _CallSites(ExprVisitor):
    """Which functions are used other than as the callee of a call."""

    def __init__(self):
        self.escaping: set = set()

    def visit_call_(self, op: Call) -> None:
        if not isinstance(op.op, GlobalVar):
            self.visit_expr(op.op)
        for a in op.args:
            self.visit_expr(a)

    def visit_global_var_(self, op: GlobalVar) -> None:
        self.escaping.add(op.name_hint)


def _tir_vars_used(func: Function) -> list:
    found: list = []

    def add(expr):
        post_order_visit(expr, lambda n: found.append(n) if isinstance(n, TirVar) and n not in found else None)

    class Collect(ExprVisitor):
        def visit_var_def_(self, var):
            for v in tir_vars_in_struct_info(var.struct_info):
                if v not in found:
                    found.append(v)

        def visit_shape_expr_(self, op: ShapeExpr):
            for v in op.values:
                add(v)

        def visit_prim_value_(self, op: PrimValue):
            add(op.value)

    Collect().visit_expr(func.body)
    for v in tir_vars_in_struct_info(func.ret_struct_info):
        if v not in found:
            found.append(v)
    return found


def _plan(func: Function):
    """(kept parameter indices, new Prim parameters) or None when nothing can go."""
    used = set(free_vars(func.body))
    kept = [i for i, p in enumerate(func.params) if p in used]
    if len(kept) == len(func.params):
        return None
    defined = set()
    for i in kept:
        defined.update(definable_tir_vars_in_struct_info(func.params[i].struct_info))
    missing = [v for v in _tir_vars_used(func) if v not in defined]
    return kept, missing


def _caller_values(func: Function, args, missing: list) -> list | None:
    """The caller-side value of each missing dim, read off the arguments' struct info."""
    known: dict = {}
    for p, a in zip(func.params, args):
        pairs: list = []
        _dim_pairs(p.struct_info, a.struct_info_or_none(), pairs)
        for d, v in pairs:
            if isinstance(d, TirVar):
                known.setdefault(d, v)
    values = [known.get(v) for v in missing]
    return None if any(v is None for v in values) else values


class _CallRewriter(ExprMutator):
    def __init__(self, mod: IRModule, old: dict, plans: dict):
        super().__init__(mod)
        self.old, self.plans = old, plans

    def visit_call_(self, op: Call):
        call = super().visit_call_(op)
        if not isinstance(call.op, GlobalVar) or call.op.name_hint not in self.plans:
            return call
        kept, missing = self.plans[call.op.name_hint]
        values = _caller_values(self.old[call.op.name_hint], call.args, missing)
        args = [call.args[i] for i in kept] + [PrimValue(v) for v in values]
        return self.builder_.normalize(Call(call.op, args, call.attrs, call.sinfo_args))


def _remove(mod: IRModule, ctx) -> IRModule:
    sites = _CallSites()
    for func in mod.functions.values():
        if isinstance(func, Function):
            sites.visit_expr(func)
    plans, old = {}, {}
    for gv, func in mod.functions.items():
        if not isinstance(func, Function) or "global_symbol" in (func.attrs or {}) or gv.name_hint in sites.escaping:
            continue
        plan = _plan(func)
        if plan is not None:
            plans[gv.name_hint], old[gv.name_hint] = plan, func
    if not plans:
        return mod
    # every call site must be able to supply the dims that move into Prim parameters
    for func in mod.functions.values():
        if isinstance(func, Function):
            _check_calls(func, plans, old)
    new_funcs = {}
    for gv, func in mod.functions.items():
        if gv.name_hint in plans:
            kept, missing = plans[gv.name_hint]
            params = [func.params[i] for i in kept]
            params += [Var(f"param_{v.name}", PrimStructInfo(value=v)) for v in missing]
            func = Function(params, func.body, func.ret_struct_info, func.is_pure, func.attrs)
        new_funcs[gv] = func
    new_mod = mod.with_functions(new_funcs)
    rewriter = _CallRewriter(new_mod, old, plans)
    out = {gv: (rewriter.visit_expr(f) if isinstance(f, Function) else f) for gv, f in new_mod.functions.items()}
    return new_mod.with_functions(out)


def _check_calls(func: Function, plans: dict, old: dict) -> None:
    class Check(ExprVisitor):
        def visit_call_(self, op: Call):
            super().visit_call_(op)
            name = op.op.name_hint if isinstance(op.op, GlobalVar) else None
            if name in plans and plans[name][1] and _caller_values(old[name], op.args, plans[name][1]) is None:
                del plans[name]

    Check().visit_expr(func)


def RemoveUnusedParameters() -> Pass:  # noqa: N802 - TVM's name
    return module_pass(_remove, opt_level=0, name="RemoveUnusedParameters")

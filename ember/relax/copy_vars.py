"""``copy_function_with_new_vars``: a structurally equal copy of a Relax function whose
Relax variables (parameters, bindings) and defined symbolic TIR variables are all fresh
(TVM's ``relax.utils.copy_with_new_vars``; used before inlining a function twice)."""

from __future__ import annotations

from ember.ir import Var as TirVar
from ember.ir import replace
from ember.tir.functor import substitute

from .expr import Call, Function, MatchCast, PrimValue, ShapeExpr
from .expr_functor import ExprMutator
from .struct_info_subst import substitute_sinfo

__all__ = ["copy_function_with_new_vars"]


class _FreshVars(ExprMutator):
    def __init__(self, tir_map: dict):
        super().__init__()
        self.tir_map = tir_map
        self._lookup = {id(k): v for k, v in tir_map.items()}

    def sinfo(self, sinfo):
        return substitute_sinfo(sinfo, self.tir_map) if sinfo is not None else None

    def prim(self, e):
        return substitute(e, lambda v: self._lookup.get(id(v)))

    def visit_var_def_(self, var):
        if id(var) in self.var_remap_:
            return self.var_remap_[id(var)]
        new = type(var)(var.name_hint, self.sinfo(var.struct_info))
        self.set_var_remap(var, new)
        return new

    def visit_shape_expr_(self, op: ShapeExpr):
        return self.builder_.normalize(ShapeExpr([self.prim(v) for v in op.values]))

    def visit_prim_value_(self, op: PrimValue):
        return self.builder_.normalize(PrimValue(self.prim(op.value)))

    def visit_call_(self, op: Call):
        callee = self.visit_expr(op.op)
        args = [self.visit_expr(a) for a in op.args]
        sinfo_args = [self.sinfo(s) for s in op.sinfo_args]
        return self.builder_.normalize(Call(callee, args, op.attrs, sinfo_args))

    def visit_var_binding_(self, binding) -> None:
        from .expr import VarBinding

        value = self.builder_.normalize(self.visit_expr(binding.value))
        var = self.visit_var_def(binding.var)
        var = self.with_struct_info(var, value.struct_info)
        self.set_var_remap(binding.var, var)
        self.builder_.emit_normalized(VarBinding(var, value))

    def visit_match_cast_(self, binding: MatchCast) -> None:
        value = self.builder_.normalize(self.visit_expr(binding.value))
        var = self.visit_var_def(binding.var)
        self.builder_.emit_normalized(replace(binding, var=var, value=value,
                                              struct_info=self.sinfo(binding.struct_info)))

    def visit_function_(self, op: Function):
        params = [self.visit_var_def(p) for p in op.params]
        body = self.visit_with_new_scope(op.body)
        return Function(params, body, self.sinfo(op.ret_struct_info), op.is_pure, op.attrs)


def copy_function_with_new_vars(func: Function) -> Function:
    if not isinstance(func, Function):
        raise TypeError(f"copy_with_new_vars: func must be a relax.Function, got {type(func).__name__}")
    from .analysis import defined_symbolic_vars

    tir_map = {}
    for v in defined_symbolic_vars(func):
        if v not in tir_map:
            tir_map[v] = TirVar(v.name, v.dtype)
    return _FreshVars(tir_map).visit_expr(func)

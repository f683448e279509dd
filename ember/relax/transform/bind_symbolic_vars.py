"""BindSymbolicVars: specialise Relax functions to known values of symbolic dims.

``BindSymbolicVars(binding_map, func_name=None)`` replaces symbolic dims (tir Vars, or
their names) with values everywhere: in variables' struct info (variables whose info
changes are renamed consistently), shape expressions, prim values, ``sinfo_args`` and
the return info.  Calls are re-normalised, so inferred shapes become static.
"""

from __future__ import annotations

from ember.error import TVMError
from ember.ir import IRModule, as_expr
from ember.ir import Var as TirVar
from ember.tir.functor import post_order_visit, substitute
from ember.transform import Pass, module_pass

from .._arith import simplify
from ..expr import Function, PrimValue, ShapeExpr, Var
from ..expr_functor import ExprMutator
from ..struct_info import shape_values
from ..struct_info_subst import substitute_sinfo

__all__ = ["BindSymbolicVars", "bind_symbolic_vars"]


class _SymbolicBinder(ExprMutator):
    def __init__(self, vmap: dict, mod=None):
        super().__init__(mod)
        self.vmap = vmap
        self.lookup = {id(k): v for k, v in vmap.items()}

    def prim(self, e):
        out = substitute(e, lambda v: self.lookup.get(id(v)))
        return e if out is e else simplify(out)

    def _new_var(self, var: Var) -> Var:
        found = self.var_remap_.get(id(var))
        if found is not None:
            return found
        sinfo = substitute_sinfo(var.struct_info, self.vmap)
        if sinfo is var.struct_info:
            return var
        new = type(var)(var.name_hint, sinfo)
        self.set_var_remap(var, new)
        return new

    def visit_var_def_(self, var: Var) -> Var:
        return self._new_var(var)

    def visit_shape_expr_(self, op: ShapeExpr):
        values = [self.prim(v) for v in op.values]
        return op if all(a is b for a, b in zip(values, op.values)) else ShapeExpr(values)

    def visit_prim_value_(self, op: PrimValue):
        value = self.prim(op.value)
        return op if value is op.value else PrimValue(value)

    def visit_call_(self, op):
        call = super().visit_call_(op)
        infos = [substitute_sinfo(s, self.vmap) for s in call.sinfo_args]
        if all(a is b for a, b in zip(infos, call.sinfo_args)):
            return call
        from ..expr import Call

        return self.builder_.normalize(Call(call.op, call.args, call.attrs, infos))

    def visit_function_(self, op: Function):
        params = [self._new_var(p) for p in op.params]
        body = self.visit_with_new_scope(op.body)
        ret = substitute_sinfo(op.ret_struct_info, self.vmap)
        if all(a is b for a, b in zip(params, op.params)) and body is op.body and ret is op.ret_struct_info:
            return op
        return Function(params, body, ret, op.is_pure, op.attrs)


def _tir_vars(func: Function) -> dict[str, TirVar]:
    found: dict[str, TirVar] = {}
    for p in func.params:
        for d in shape_values(p.struct_info) or ():
            post_order_visit(d, lambda n: found.setdefault(n.name, n) if isinstance(n, TirVar) else None)
    return found


class BindSymbolicVarsError(TVMError, ValueError):
    """A binding map that does not name the function's symbolic variables unambiguously."""


def bind_symbolic_vars(func: Function, binding_map: dict, mod=None, strict: bool = False) -> Function:
    """``func`` with symbolic dims replaced (keys: tir Vars or their names). ``strict`` (the
    ``Function.bind_symbolic_vars`` method, as TVM's) also refuses a name two variables share,
    a tir Var the function does not use, a variable given twice, and values whose own
    symbolic variables nothing defines afterwards."""
    if strict:
        return _bind_strict(func, binding_map, mod)
    by_name = _tir_vars(func)
    vmap = {}
    for key, value in binding_map.items():
        var = by_name.get(key) if isinstance(key, str) else key
        if var is None:
            raise ValueError(f"BindSymbolicVars: the function has no symbolic variable named {key!r}")
        vmap[var] = as_expr(value, var.dtype) if isinstance(value, int) else value
    return _SymbolicBinder(vmap, mod).visit_expr(func) if vmap else func


def _bind_strict(func: Function, binding_map: dict, mod) -> Function:
    from ..analysis.symbolic_vars import defined_symbolic_vars, free_symbolic_vars, tir_vars_in_struct_info

    used: list = []
    for p in func.params:
        used += [v for v in tir_vars_in_struct_info(p.struct_info) if all(v is not u for u in used)]
    used += [v for v in defined_symbolic_vars(func) if all(v is not u for u in used)]
    vmap: dict = {}
    for key, value in binding_map.items():
        if isinstance(key, str):
            named = [v for v in used if v.name == key]
            if len(named) != 1:
                why = "no symbolic variable" if not named else f"{len(named)} symbolic variables"
                raise BindSymbolicVarsError(f"BindSymbolicVars: the function has {why} named {key!r}")
            var = named[0]
        elif any(key is v for v in used):
            var = key
        else:
            raise BindSymbolicVarsError(f"BindSymbolicVars: {key} is not a symbolic variable of the function")
        if var in vmap:
            raise BindSymbolicVarsError(f"BindSymbolicVars: {var.name} is given twice (by name and as a Var)")
        vmap[var] = as_expr(value, var.dtype) if isinstance(value, int) else value
    out = _SymbolicBinder(vmap, mod).visit_expr(func) if vmap else func
    introduced = {id(v) for value in vmap.values() for v in _vars_in(value)}
    undefined = [v.name for v in free_symbolic_vars(out) if id(v) in introduced]
    if undefined:
        raise BindSymbolicVarsError(f"BindSymbolicVars: the replacements use {undefined}, which nothing defines")
    return out


def _vars_in(value) -> list:
    found: list = []
    if not isinstance(value, int):
        post_order_visit(value, lambda n: found.append(n) if isinstance(n, TirVar) else None)
    return found


def BindSymbolicVars(binding_map: dict, func_name: str | None = None) -> Pass:  # noqa: N802 - TVM's name
    def transform(mod: IRModule, ctx) -> IRModule:
        functions = {}
        for gv, func in mod.functions.items():
            if isinstance(func, Function) and (func_name is None or gv.name_hint == func_name):
                func = bind_symbolic_vars(func, binding_map, mod)
            functions[gv] = func
        return mod.with_functions(functions)

    return module_pass(transform, opt_level=0, name="BindSymbolicVars")

"""LambdaLift: local functions become private functions of the module.

A function bound inside another (``inner = R.function ...``) is lifted to a global named
``<outer>_<inner>`` (``_0``, ``_1``, ... appended when taken).  Without captured variables
its calls become direct calls of the new global.  With captured variables the lifted
function takes them as extra trailing parameters, the local binding becomes
``R.make_closure(global, captured)`` and calls through it ``R.invoke_pure_closure`` (or
``R.invoke_closure`` for an impure callee); a recursive call inside the lifted function
calls the global directly, passing the captured values on.  Any other call of a function
value held in a variable is likewise a closure invocation.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule
from ember.transform import Pass, module_pass

from ..analysis.vars import free_vars
from ..copy_vars import copy_function_with_new_vars
from ..expr import Call, Function, Tuple, Var, VarBinding
from ..expr_functor import ExprMutator
from ..op.call import invoke_closure, invoke_pure_closure, make_closure
from ..struct_info import FuncStructInfo, ObjectStructInfo

__all__ = ["LambdaLift"]


def _callable_to_object(sinfo):
    return ObjectStructInfo() if isinstance(sinfo, FuncStructInfo) else sinfo


class _Lifter(ExprMutator):
    def __init__(self, mod: IRModule, outer: str, taken: set, lifted: dict):
        super().__init__(mod)
        self.outer, self.taken, self.lifted = outer, taken, lifted
        self.direct: dict = {}  # local function var -> GlobalVar (no captures)
        self.recursive: dict = {}  # var being lifted with captures -> (GlobalVar, capture params)

    def _fresh(self, local: str) -> str:
        base = f"{self.outer}_{local}"
        name, k = base, 0
        while name in self.taken:
            name = f"{base}_{k}"
            k += 1
        self.taken.add(name)
        return name

    def visit_var_binding_(self, binding: VarBinding) -> None:
        if isinstance(binding.value, Function):
            self._lift(binding)
            return
        super().visit_var_binding_(binding)

    def _lift(self, binding: VarBinding) -> None:
        var, func = binding.var, binding.value
        gv = GlobalVar(self._fresh(var.name_hint))
        captures = [v for v in free_vars(func) if v is not var]
        cap_params = [Var(c.name_hint, c.struct_info) for c in captures]
        saved = dict(self.var_remap_)
        for c, p in zip(captures, cap_params):
            self.var_remap_[id(c)] = p
        if captures:
            self.recursive[var] = (gv, cap_params)
        else:
            self.direct[var] = gv
        new_func = ExprMutator.visit_function_(self, func)
        self.var_remap_ = saved
        self.recursive.pop(var, None)
        attrs = {k: v for k, v in (func.attrs or {}).items() if k != "global_symbol"}
        lifted = Function(list(new_func.params) + cap_params, new_func.body,
                          _callable_to_object(new_func.ret_struct_info), func.is_pure, attrs)
        self.lifted[gv] = copy_function_with_new_vars(lifted)  # its own variables and symbolic dims
        if not captures:
            return  # every use now names the global
        closure = self.builder_.normalize(make_closure(gv, Tuple([self.visit_expr(c) for c in captures])))
        new_var = type(var)(var.name_hint, closure.struct_info)
        self.set_var_remap(var, new_var)
        self.builder_.emit_normalized(VarBinding(new_var, closure))

    def visit_var_(self, op: Var):
        gv = self.direct.get(op)
        return gv if gv is not None else super().visit_var_(op)

    def visit_call_(self, op: Call):
        callee = op.op
        if not isinstance(callee, Var):
            return super().visit_call_(op)
        args = [self.visit_expr(a) for a in op.args]
        sinfo = _callable_to_object(op.struct_info)
        if callee in self.direct:
            return Call(self.direct[callee], args, op.attrs, op.sinfo_args, struct_info=sinfo)
        if callee in self.recursive:
            gv, cap_params = self.recursive[callee]
            return Call(gv, args + cap_params, op.attrs, op.sinfo_args, struct_info=sinfo)
        callee_sinfo = callee.struct_info_or_none()
        pure = getattr(callee_sinfo, "purity", True)
        invoke = invoke_pure_closure if pure else invoke_closure
        return self.builder_.normalize(invoke(self.visit_expr(callee), Tuple(args), [sinfo]))


def _has_local_function(func: Function) -> bool:
    from ..expr_functor import ExprVisitor

    found = []

    class Finder(ExprVisitor):
        def visit_function_(self, op):
            if op is not func:
                found.append(op)
            else:
                super().visit_function_(op)

    Finder().visit_expr(func)
    return bool(found)


def _lift_module(mod: IRModule, ctx) -> IRModule:
    taken = {gv.name_hint for gv in mod.functions}
    lifted: dict = {}
    functions = {}
    for gv, func in mod.functions.items():
        if isinstance(func, Function) and _has_local_function(func):
            func = _Lifter(mod, gv.name_hint, taken, lifted).visit_expr(func)
        functions[gv] = func
    if not lifted:
        return mod
    functions.update(lifted)
    return IRModule(functions, dict(mod.attrs or {}), getattr(mod, "global_infos", None))


def LambdaLift() -> Pass:  # noqa: N802 - TVM's name
    return module_pass(_lift_module, opt_level=0, name="LambdaLift")

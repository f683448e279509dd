"""UpdateParamStructInfo: give function parameters new struct info and re-infer the body.

``sinfo_func(param)`` returns the parameter's new struct info, or None to keep it; every
binding is re-normalised, so shapes inferred from the parameter (and the return struct info)
follow.  Typical use: resize a model's weights.
"""

from __future__ import annotations

from ember.ir import IRModule
from ember.transform import Pass, module_pass

from ..expr import Function
from ..expr_functor import ExprMutator

__all__ = ["UpdateParamStructInfo"]


def _update(func: Function, mod, sinfo_func) -> Function:
    mutator = ExprMutator(mod)
    changed = False
    for p in func.params:
        sinfo = sinfo_func(p)
        if sinfo is not None:
            mutator.set_var_remap(p, type(p)(p.name_hint, sinfo))
            changed = True
    if not changed:
        return func
    new = mutator.visit_expr(func)
    ret = new.body.struct_info_or_none() or new.ret_struct_info
    return Function(new.params, new.body, ret, new.is_pure, new.attrs)


def UpdateParamStructInfo(sinfo_func) -> Pass:  # noqa: N802 - TVM's name
    def run(mod: IRModule, ctx) -> IRModule:
        functions = {gv: (_update(f, mod, sinfo_func) if isinstance(f, Function) else f)
                     for gv, f in mod.functions.items()}
        return mod.with_functions(functions)

    return module_pass(run, opt_level=0, name="UpdateParamStructInfo")

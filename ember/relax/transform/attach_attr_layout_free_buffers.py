"""AttachAttrLayoutFreeBuffers: tell kernels which inputs are weights.

For each ``call_tir`` in a function with ``num_input``, the arguments that are model weights
(parameters after the first ``num_input``) or constants are listed in the called PrimFunc's
``layout_free_buffers`` attribute: a schedule may then change their layout freely, the change
being folded into the weights ahead of time.  A PrimFunc called with different weight
positions gets one copy per set (``matmul1``, ``matmul2``, ...); copies replace the original
where it is no longer called.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule, Op
from ember.tir import PrimFunc
from ember.tir.renew_defs import renew_defs
from ember.transform import Pass, module_pass

from ..analysis.vars import all_global_vars
from ..expr import Call, Constant, Function, Tuple
from ..expr_functor import ExprMutator
from .global_var_rename import fresh_name

__all__ = ["AttachAttrLayoutFreeBuffers"]


def _is_call_tir(expr) -> bool:
    return isinstance(expr, Call) and isinstance(expr.op, Op) and expr.op.name == "relax.call_tir"


class _Attach(ExprMutator):
    def __init__(self, mod: IRModule, weights: set, copies: dict, taken: set):
        super().__init__(mod)
        self.mod, self.weights, self.copies, self.taken = mod, weights, copies, taken

    def visit_call_(self, op: Call):
        call = super().visit_call_(op)
        if not _is_call_tir(call) or not isinstance(call.args[0], GlobalVar) or not isinstance(call.args[1], Tuple):
            return call
        name = call.args[0].name_hint
        func = self.mod[name] if name in self.mod else None
        if not isinstance(func, PrimFunc):
            return call
        free = tuple(i for i, a in enumerate(call.args[1].fields) if isinstance(a, Constant) or a in self.weights)
        if not free:
            return call
        key = (name, free)
        if key not in self.copies:
            new_name = fresh_name(name, self.taken | {name})
            self.taken.add(new_name)
            copy = renew_defs(func).with_attr("layout_free_buffers", list(free))  # its own variables
            self.copies[key] = (GlobalVar(new_name), copy)
        gv = self.copies[key][0]
        return Call(call.op, [gv] + list(call.args[1:]), call.attrs, call.sinfo_args, struct_info=call.struct_info)


def _attach(mod: IRModule, ctx) -> IRModule:
    copies: dict = {}
    taken = {gv.name_hint for gv in mod.functions}
    functions = {}
    for gv, func in mod.functions.items():
        num_input = (getattr(func, "attrs", None) or {}).get("num_input") if isinstance(func, Function) else None
        if num_input is not None:
            func = _Attach(mod, set(func.params[int(num_input):]), copies, taken).visit_expr(func)
        functions[gv] = func
    if not copies:
        return mod
    used = {g.name_hint for f in functions.values() if isinstance(f, Function) for g in all_global_vars(f)}
    out = {gv: f for gv, f in functions.items()
           if not (isinstance(f, PrimFunc) and any(k[0] == gv.name_hint for k in copies) and gv.name_hint not in used)}
    out.update({gv: f for gv, f in copies.values()})
    return IRModule(out, dict(mod.attrs or {}), getattr(mod, "global_infos", None))


def AttachAttrLayoutFreeBuffers() -> Pass:  # noqa: N802 - TVM's name
    return module_pass(_attach, opt_level=0, name="AttachAttrLayoutFreeBuffers")

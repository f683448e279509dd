"""ComputePrimValue: symbolic expressions in ``R.prim_value`` are computed by small kernels.

A ``R.prim_value(expr)`` whose value is neither a constant nor a bare symbolic variable
(``N % 16 == 0``, ``N * M``) becomes a call of a generated host PrimFunc
``compute_symbolic_expr(N, ...)`` that returns the value (``T.ret``), so the VM can evaluate
it; the symbolic variables it reads are passed as ``R.prim_value``s.
"""

from __future__ import annotations

from ember.ir import FloatImm, GlobalVar, IntImm, IRModule
from ember.ir import Var as TirVar
from ember.tir import PrimFunc
from ember.tir.functor import post_order_visit, substitute
from ember.tir.op import ret
from ember.tir.stmt import Evaluate
from ember.transform import Pass, module_pass

from ..expr import Call, Function, PrimValue
from ..expr_functor import ExprMutator
from ..struct_info import PrimStructInfo
from .global_var_rename import fresh_name

__all__ = ["ComputePrimValue"]


def _vars(expr) -> list:
    found: list = []
    post_order_visit(expr, lambda n: found.append(n) if isinstance(n, TirVar) and n not in found else None)
    return found


class _Compute(ExprMutator):
    def __init__(self, mod: IRModule, taken: set, kernels: dict):
        super().__init__(mod)
        self.taken, self.kernels = taken, kernels

    def visit_prim_value_(self, op: PrimValue):
        value = op.value
        if isinstance(value, (IntImm, FloatImm, TirVar)):
            return op
        used = _vars(value)
        params = [TirVar(v.name, v.dtype) for v in used]  # the kernel's own variables
        body = substitute(value, dict(zip(used, params)))
        name = fresh_name("compute_symbolic_expr", self.taken)
        self.taken.add(name)
        kernel = PrimFunc(params, Evaluate(ret(body)), value.dtype, {}, {"tir.is_host_func": True})
        gv = GlobalVar(name)
        self.kernels[gv] = kernel
        return Call(gv, [PrimValue(v) for v in used], struct_info=PrimStructInfo(str(value.dtype)))


def _compute(mod: IRModule, ctx) -> IRModule:
    taken = {gv.name_hint for gv in mod.functions}
    kernels: dict = {}
    functions = {}
    for gv, func in mod.functions.items():
        if isinstance(func, Function):
            new = _Compute(mod, taken, kernels).visit_expr(func)
            if new is not func:  # the value is the same, only computed: the declared return info stays
                new = Function(new.params, new.body, func.ret_struct_info, new.is_pure, new.attrs)
            func = new
        functions[gv] = func
    if not kernels:
        return mod
    functions.update(kernels)
    return IRModule(functions, dict(mod.attrs or {}), getattr(mod, "global_infos", None))


def ComputePrimValue() -> Pass:  # noqa: N802 - TVM's name
    return module_pass(_compute, opt_level=0, name="ComputePrimValue")

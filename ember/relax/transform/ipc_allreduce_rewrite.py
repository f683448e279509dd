"""IPCAllReduceRewrite(allreduce_strategy): use CUDA IPC memory for sum-allreduces (TVM's pass).

After lowering, an allreduce is ``R.call_packed("runtime.disco.allreduce", x, R.shape([kind]),
in_group, out)``.  For a sum (kind 0) whose input ``x`` comes (through plain re-bindings and
``R.reshape``) from an allocation, the pass allocates ``x`` in the ``"ipc_memory"`` scope
(``R.builtin.alloc_tensor``'s scope, or the ``R.memory.alloc_storage`` under an
``R.memory.alloc_tensor``) and calls ``runtime.disco.cuda_ipc.custom_allreduce(x,
R.prim_value(strategy), out)`` instead, which reads the other workers' inputs directly.

The rewrite needs that function at run time: when it is not registered (ember has no
CUDA IPC runtime of its own) the pass leaves the module as it is and says why in the log,
as TVM does.  Other reductions and inputs of unknown origin are left alone.
"""

from __future__ import annotations

import logging

from ember.ir import IRModule

from ..expr import Call, ExternFunc, Function, PrimValue, ShapeExpr, StringImm, Var
from .binding_rewrite import BindingRewriter, is_op_call

__all__ = ["IPCAllReduceRewrite"]

_log = logging.getLogger("ember.relax.transform")

ALLREDUCE = "runtime.disco.allreduce"
CUSTOM_ALLREDUCE = "runtime.disco.cuda_ipc.custom_allreduce"
IPC_SCOPE = "ipc_memory"
_SCOPE_ARG = {"relax.builtin.alloc_tensor": 3, "relax.memory.alloc_storage": 2}


def _is_sum_allreduce(value) -> bool:
    if not (isinstance(value, Call) and isinstance(value.op, ExternFunc)
            and value.op.global_symbol == ALLREDUCE and len(value.args) == 4):
        return False
    kind = value.args[1]
    return (isinstance(kind, ShapeExpr) and len(kind.values) == 1
            and getattr(kind.values[0], "value", None) == 0)


class _Rewriter(BindingRewriter):
    def __init__(self, mod, func: Function, strategy: int):
        super().__init__(mod, func)
        self.strategy = strategy
        self.allocations: set[int] = set()  # ids of the allocation calls to move to IPC memory
        self.allreduces: set[int] = set()  # ids of the allreduce calls to replace
        for value in self.values.values():
            if _is_sum_allreduce(value):
                allocation = self.allocation_of(value.args[0])
                if allocation is None:
                    _log.debug("IPCAllReduceRewrite: allreduce input %s has no allocation in view; "
                               "left as is", value.args[0])
                    continue
                self.allocations.add(id(allocation))
                self.allreduces.add(id(value))

    def allocation_of(self, expr):
        """The allocation call ``expr``'s memory comes from, or None."""
        for _ in range(len(self.values) + 1):
            value = self.value_of(expr)
            if isinstance(value, Var):
                expr = value
            elif is_op_call(value, "relax.reshape"):
                expr = value.args[0]
            elif is_op_call(value, "relax.builtin.alloc_tensor"):
                return value
            elif is_op_call(value, "relax.memory.alloc_tensor"):
                storage = self.value_of(value.args[0])
                return storage if is_op_call(storage, "relax.memory.alloc_storage") else None
            else:
                return None
        return None

    def rewrite(self, value):
        if id(value) in self.allocations:
            args = list(value.args)
            args[_SCOPE_ARG[value.op.name]] = StringImm(IPC_SCOPE)
            return Call(value.op, args, value.attrs, value.sinfo_args)
        if id(value) in self.allreduces:
            x, _, _, out = value.args
            return Call(ExternFunc(CUSTOM_ALLREDUCE), [x, PrimValue(self.strategy), out], None,
                        value.sinfo_args)
        return None


def IPCAllReduceRewrite(allreduce_strategy: int):  # noqa: N802 - TVM's pass name
    """Rewrite sum-allreduces to ``runtime.disco.cuda_ipc.custom_allreduce`` with strategy
    ``allreduce_strategy`` and their inputs' allocations to IPC memory (see module docstring)."""
    from ember.runtime.registry import get_global_func
    from ember.transform import module_pass

    strategy = int(allreduce_strategy)

    def run(mod: IRModule, ctx) -> IRModule:
        if get_global_func(CUSTOM_ALLREDUCE, allow_missing=True) is None:
            _log.warning("IPCAllReduceRewrite: %s is not registered; the module is left as it is",
                         CUSTOM_ALLREDUCE)
            return mod
        functions, changed = {}, False
        for gv, func in mod.functions.items():
            if isinstance(func, Function):
                rewriter = _Rewriter(mod, func, strategy)
                if rewriter.allreduces:
                    func = rewriter.visit_expr(func)
                    changed = True
            functions[gv] = func
        return mod.with_functions(functions) if changed else mod

    return module_pass(run, opt_level=0, name="IPCAllReduceRewrite")

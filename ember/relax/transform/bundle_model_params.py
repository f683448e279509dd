"""BundleModelParams: a function's model parameters become one tuple parameter.

For a function with the ``num_input`` attribute, the parameters after the first
``num_input`` are replaced by a single tuple parameter (``param_tuple_name``, default
``params``; an empty tuple when there are none).  Each former parameter is read from the
tuple where it is first used (``b = params[0]``, keeping its name), so a caller can pass
the output of a lifted parameter transformation as it is.
"""

from __future__ import annotations

from ember.ir import IRModule
from ember.transform import Pass, module_pass

from ..expr import DataflowVar, Function, TupleGetItem, Var, VarBinding
from ..expr_functor import ExprMutator
from ..struct_info import TupleStructInfo

__all__ = ["BundleModelParams"]


class _Bundler(ExprMutator):
    def __init__(self, mod, model_params: list, tuple_param: Var, consume: bool = False):
        super().__init__(mod)
        self.index = {p: i for i, p in enumerate(model_params)}
        self.tuple_param = tuple_param
        self.consume = consume  # release each item from the tuple once read (LiftTransformParams)
        self.ready: dict = {}  # model param -> the variable holding it here

    def visit_var_(self, op: Var):
        k = self.index.get(op)
        if k is None:
            return super().visit_var_(op)
        var = self.ready.get(op)
        if var is None:
            value = self.builder_.normalize(TupleGetItem(self.tuple_param, k))
            var = (DataflowVar if self.builder_._is_dataflow else Var)(op.name_hint, value.struct_info)
            self.builder_.emit_normalized(VarBinding(var, value))
            self.ready[op] = var
            if self.consume:
                self._release(k)
        return var

    def _release(self, k: int) -> None:
        from ember.ir import IntImm

        from ..expr import PrimValue
        from ..op.call import call_pure_packed

        reset = call_pure_packed("vm.builtin.tuple_reset_item", self.tuple_param, PrimValue(IntImm("int32", k)),
                                 sinfo_args=[TupleStructInfo([])])
        self.builder_.emit(reset, "_")

    def _rebuild_block(self, block, dataflow: bool):
        out = super()._rebuild_block(block, dataflow)
        if dataflow:  # values read inside a dataflow block are not visible after it
            self.ready = {p: v for p, v in self.ready.items() if not isinstance(v, DataflowVar)}
        return out

    def visit_with_new_scope(self, expr):
        saved = dict(self.ready)
        try:
            return super().visit_with_new_scope(expr)
        finally:
            self.ready = saved


def _bundle(func: Function, mod, name: str) -> Function:
    num_input = func.attrs.get("num_input") if func.attrs else None
    if num_input is None:
        return func
    n = int(num_input)
    inputs, model = list(func.params[:n]), list(func.params[n:])
    tuple_param = Var(name, TupleStructInfo([p.struct_info for p in model]))
    body = _Bundler(mod, model, tuple_param).visit_with_new_scope(func.body)
    return Function(inputs + [tuple_param], body, func.ret_struct_info, func.is_pure, func.attrs)


def BundleModelParams(param_tuple_name: str | None = None) -> Pass:  # noqa: N802 - TVM's name
    name = param_tuple_name or "params"

    def run(mod: IRModule, ctx) -> IRModule:
        functions = {gv: (_bundle(f, mod, name) if isinstance(f, Function) else f) for gv, f in mod.functions.items()}
        return mod.with_functions(functions)

    return module_pass(run, opt_level=0, name="BundleModelParams")

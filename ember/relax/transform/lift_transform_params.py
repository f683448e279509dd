"""LiftTransformParams: move the computations that depend only on model weights into a
separate ``<name>_transform_params`` function, run once ahead of inference.

For a function with ``num_input = k``, parameters after the first k are model weights.  A
pure binding (no If, no local function, not ``R.builtin.stop_lift_params``) whose inputs are
weights, lifted bindings or weight-free bindings (``R.ones(...)``), that uses at least one
weight and whose shape uses only the weights' symbolic dims, is lifted.  The new function
takes the weights as one tuple (read where first used, see BundleModelParams) and returns,
in this order, the weights the remaining code still reads and the lifted values it reads.
The original function takes those as parameters after its inputs (named after the values).
Weight-free bindings that lifted ones need are copied, not moved.  ``stop_lift_params(x)``
marks where lifting stops and is replaced by ``x``.  With the PassContext option
``relax.lift_transform_params.consume_params`` each weight is released from the tuple
(``vm.builtin.tuple_reset_item``) once read.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule, Op
from ember.transform import Pass, PassContext, module_pass

from ..analysis.symbolic_vars import definable_tir_vars_in_struct_info, tir_vars_in_struct_info
from ..analysis.vars import free_vars, is_pure_call
from ..expr import (
    Call, DataflowBlock, DataflowVar, Function, If, MatchCast, SeqExpr, Tuple, Var, VarBinding,
)
from ..expr_functor import ExprMutator
from ..struct_info import TupleStructInfo
from .bundle_model_params import _Bundler

__all__ = ["LiftTransformParams"]

_CONSUME = "relax.lift_transform_params.consume_params"


def _is_stop(value) -> bool:
    return isinstance(value, Call) and isinstance(value.op, Op) and value.op.name == "relax.builtin.stop_lift_params"


def _bindings(func: Function) -> list:
    body = func.body
    return [b for block in body.blocks for b in block.bindings] if isinstance(body, SeqExpr) else []


class _Plan:
    def __init__(self, func: Function, num_input: int):
        self.weights = list(func.params[num_input:])
        weight_dims = set()
        for w in self.weights:
            weight_dims.update(definable_tir_vars_in_struct_info(w.struct_info))
        lifted, weight_free, needs = set(self.weights), set(), {}
        self.lifted_bindings: list = []
        self.copied: set = set()
        for b in _bindings(func):
            value = b.value
            if isinstance(value, (If, Function)) or _is_stop(value) or not is_pure_call(value, None, unknown=False):
                continue
            uses = free_vars(value)
            if any(u not in lifted and u not in weight_free for u in uses):
                continue
            dims = set(tir_vars_in_struct_info(b.var.struct_info))
            if isinstance(b, MatchCast):
                dims |= set(tir_vars_in_struct_info(b.struct_info))
            if not any(u in lifted for u in uses):
                if not dims:
                    weight_free.add(b.var)
                    needs[b.var] = [u for u in uses if u in weight_free]
                continue
            if not dims <= weight_dims:
                continue
            lifted.add(b.var)
            self.lifted_bindings.append(b)
            stack = [u for u in uses if u in weight_free]
            while stack:
                v = stack.pop()
                if v not in self.copied:
                    self.copied.add(v)
                    stack.extend(needs.get(v, ()))
        self.lifted_vars = [b.var for b in self.lifted_bindings]
        # what the remaining code reads of the weights and lifted values
        lifted_set = set(self.lifted_vars)
        read: set = set()
        for b in _bindings(func):
            if b.var in lifted_set:
                continue
            read.update(free_vars(b.value))
        read.update(free_vars(func.body.body if isinstance(func.body, SeqExpr) else func.body))
        self.outputs = [w for w in self.weights if w in read] + [v for v in self.lifted_vars if v in read]


class _Rename(ExprMutator):
    def __init__(self, mapping: dict, mod=None):
        super().__init__(mod)
        for old, new in mapping.items():
            self.var_remap_[id(old)] = new


def _transform_function(func: Function, plan: _Plan, mod, consume: bool) -> Function:
    tuple_param = Var("params", TupleStructInfo([w.struct_info for w in plan.weights]))
    attrs = {"num_input": 0}
    if not plan.outputs:
        empty = Tuple([])
        return Function([tuple_param], SeqExpr([], empty), empty.struct_info, True, attrs)
    if plan.outputs == plan.weights:
        return Function([tuple_param], SeqExpr([], tuple_param), tuple_param.struct_info, True, attrs)
    keep = plan.copied | set(plan.lifted_vars)
    rename = _Rename({})
    bindings = []
    for b in _bindings(func):
        if b.var not in keep:
            continue
        value = rename.builder_.normalize(rename.visit_expr(b.value))
        sinfo = b.struct_info if isinstance(b, MatchCast) else value.struct_info
        var = DataflowVar(b.var.name_hint, sinfo)
        rename.var_remap_[id(b.var)] = var
        bindings.append(MatchCast(var, value, b.struct_info) if isinstance(b, MatchCast) else VarBinding(var, value))
    result = rename.builder_.normalize(Tuple([rename.visit_expr(v) for v in plan.outputs]))
    out = Var("gv", result.struct_info)
    bindings.append(VarBinding(out, result))
    body = SeqExpr([DataflowBlock(bindings)], out)
    bundler = _Bundler(mod, plan.weights, tuple_param, consume=consume)
    new_body = bundler.visit_with_new_scope(body)
    return Function([tuple_param], new_body, out.struct_info, True, attrs)


def _main_function(func: Function, plan: _Plan, num_input: int, mod) -> Function:
    new_params = [Var(v.name_hint, v.struct_info) for v in plan.outputs]
    mapping = dict(zip(plan.outputs, new_params))
    lifted = set(plan.lifted_vars)

    class Main(_Rename):
        def visit_var_binding_(self, binding: VarBinding) -> None:
            if binding.var in lifted:
                return
            if _is_stop(binding.value):
                self.var_remap_[id(binding.var)] = self.visit_expr(binding.value.args[0])
                return
            super().visit_var_binding_(binding)

        def visit_match_cast_(self, binding: MatchCast) -> None:
            if binding.var not in lifted:
                super().visit_match_cast_(binding)

    body = Main(mapping, mod).visit_with_new_scope(func.body)
    return Function(list(func.params[:num_input]) + new_params, body, func.ret_struct_info, func.is_pure, func.attrs)


def _is_identity(func) -> bool:
    if not isinstance(func, Function) or len(func.params) != 1:
        return False
    body = func.body
    if isinstance(body, SeqExpr) and not body.blocks:
        body = body.body
    return body is func.params[0]


def _lift(mod: IRModule, ctx) -> IRModule:
    consume = bool(PassContext.current().config.get(_CONSUME, False))
    functions = dict(mod.functions)
    added = {}
    for gv, func in mod.functions.items():
        if not isinstance(func, Function) or (func.attrs or {}).get("num_input") is None:
            continue
        name = gv.name_hint + "_transform_params"
        if name.endswith("_transform_params_transform_params"):
            continue
        existing = mod[name] if name in mod else None
        num_input = int(func.attrs["num_input"])
        plan = _Plan(func, num_input)
        if existing is not None and not (_is_identity(existing) and plan.lifted_vars):
            continue  # an earlier round lifted this function already
        functions[gv] = _main_function(func, plan, num_input, mod)
        transform = _transform_function(func, plan, mod, consume)
        added[name] = transform.with_attr("global_symbol", name)
    if not added:
        return mod
    out = {g: f for g, f in functions.items() if g.name_hint not in added}
    out.update({GlobalVar(n): f for n, f in added.items()})
    return IRModule(out, dict(mod.attrs or {}), getattr(mod, "global_infos", None))


def LiftTransformParams(shared_transform=False) -> Pass:  # noqa: N802 - TVM's name
    """Lift weight-only computations into ``<name>_transform_params`` (see the module docstring);
    ``shared_transform`` (True or a list of function names): one ``transform_params`` shared by
    those functions (see ``lift_shared_transform``)."""
    if shared_transform:  # one transform_params for all (or the named) functions
        from .lift_shared_transform import lift_shared

        names = True if shared_transform is True else list(shared_transform)

        def run(mod, ctx):
            return lift_shared(mod, names, bool(PassContext.current().config.get(_CONSUME, False)))

        return module_pass(run, opt_level=0, name="LiftTransformParams")
    return module_pass(_lift, opt_level=0, name="LiftTransformParams")

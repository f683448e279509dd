"""RemoveUnusedOutputs: a private function returning a tuple returns only the items its
callers read.

Applies when every use of the function is a call bound to a variable that is only ever
indexed (``out[i]``).  The unread items and the bindings that computed them go; a single
remaining item is returned bare, and the callers' indices are renumbered.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule
from ember.transform import Pass, module_pass

from ..analysis.erase_to_well_defined import erase_to_well_defined
from ..analysis.symbolic_vars import definable_tir_vars_in_struct_info
from ..analysis.vars import remove_all_unused
from ..expr import Call, Function, SeqExpr, Tuple, TupleGetItem, Var, VarBinding
from ..expr_functor import ExprMutator, ExprVisitor
from .canonicalize_bindings import _refine_return

__all__ = ["RemoveUnusedOutputs"]

_ALL = "all"


class _Usage(ExprVisitor):
    """For each function: the tuple items its callers read (or _ALL)."""

    def __init__(self):
        self.result_of: dict = {}  # var bound to a call -> callee name
        self.used: dict = {}  # callee name -> set of indices or _ALL

    def _mark(self, name, what) -> None:
        if what == _ALL or self.used.get(name) == _ALL:
            self.used[name] = _ALL
        else:
            self.used.setdefault(name, set()).add(what)

    def visit_var_binding_(self, binding: VarBinding) -> None:
        value = binding.value
        if isinstance(value, Call) and isinstance(value.op, GlobalVar):
            self.result_of[binding.var] = value.op.name_hint
            self.used.setdefault(value.op.name_hint, set())
            for a in value.args:
                self.visit_expr(a)
            self.visit_var_def(binding.var)
            return
        super().visit_var_binding_(binding)

    def visit_call_(self, op: Call) -> None:
        if isinstance(op.op, GlobalVar):  # a call whose result is not bound to a variable
            self._mark(op.op.name_hint, _ALL)
            for a in op.args:
                self.visit_expr(a)
            return
        super().visit_call_(op)

    def visit_global_var_(self, op: GlobalVar) -> None:
        self._mark(op.name_hint, _ALL)

    def visit_tuple_getitem_(self, op: TupleGetItem) -> None:
        name = self.result_of.get(op.tuple_value) if isinstance(op.tuple_value, Var) else None
        if name is None:
            super().visit_tuple_getitem_(op)
        else:
            self._mark(name, op.index)

    def visit_var_(self, op: Var) -> None:
        name = self.result_of.get(op)
        if name is not None:
            self._mark(name, _ALL)


def _returned_tuple(func: Function):
    body = func.body
    if isinstance(body, SeqExpr) and isinstance(body.body, Tuple):
        return body.body
    return None


def _shrink(func: Function, keep: list) -> Function:
    tup = _returned_tuple(func)
    fields = [tup.fields[i] for i in keep]
    result = fields[0] if len(fields) == 1 else Tuple(fields)
    new = Function(func.params, SeqExpr(func.body.blocks, result), None, func.is_pure, func.attrs)
    new = remove_all_unused(new)
    defined = {v: v for p in func.params for v in definable_tir_vars_in_struct_info(p.struct_info)}
    ret = erase_to_well_defined(new.body.struct_info, defined)
    return Function(new.params, new.body, ret, new.is_pure, new.attrs)


class _Callers(ExprMutator):
    def __init__(self, mod: IRModule, plans: dict):
        super().__init__(mod)
        self.plans = plans
        self.renumber: dict = {}  # id(new var) -> (kept indices)

    def visit_var_binding_(self, binding: VarBinding) -> None:
        value = binding.value
        if isinstance(value, Call) and isinstance(value.op, GlobalVar) and value.op.name_hint in self.plans:
            args = [self.visit_expr(a) for a in value.args]
            call = self.builder_.normalize(Call(value.op, args, value.attrs, value.sinfo_args))
            var = type(binding.var)(binding.var.name_hint, call.struct_info)
            self.set_var_remap(binding.var, var)
            self.renumber[id(var)] = self.plans[value.op.name_hint]
            self.builder_.emit_normalized(VarBinding(var, call))
            return
        super().visit_var_binding_(binding)

    def visit_tuple_getitem_(self, op: TupleGetItem):
        tup = self.visit_expr(op.tuple_value)
        keep = self.renumber.get(id(tup))
        if keep is None:
            return super().visit_tuple_getitem_(op)
        if len(keep) == 1:
            return tup
        return self.builder_.normalize(TupleGetItem(tup, keep.index(op.index)))


def _remove(mod: IRModule, ctx) -> IRModule:
    usage = _Usage()
    for func in mod.functions.values():
        if isinstance(func, Function):
            usage.visit_expr(func)
    plans = {}
    for gv, func in mod.functions.items():
        if not isinstance(func, Function) or "global_symbol" in (func.attrs or {}):
            continue
        tup = _returned_tuple(func)
        used = usage.used.get(gv.name_hint)
        if tup is None or used is None or used == _ALL or not used:
            continue
        keep = sorted(used)
        if len(keep) < len(tup.fields):
            plans[gv.name_hint] = keep
    if not plans:
        return mod
    new_mod = mod.with_functions({gv: (_shrink(f, plans[gv.name_hint]) if gv.name_hint in plans else f)
                                  for gv, f in mod.functions.items()})
    callers = _Callers(new_mod, plans)
    out = {}
    for gv, f in new_mod.functions.items():
        if isinstance(f, Function):
            new = callers.visit_expr(f)
            f = _refine_return(new, f) if new is not f else f  # an inferred return info follows the body
        out[gv] = f
    return new_mod.with_functions(out)


def RemoveUnusedOutputs() -> Pass:  # noqa: N802 - TVM's name
    return module_pass(_remove, opt_level=0, name="RemoveUnusedOutputs")

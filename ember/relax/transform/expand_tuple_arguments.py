"""ExpandTupleArguments: a private function's tuple parameters become one parameter per item.

Applies to private Relax functions called only directly; a call passes a tuple literal's
fields, or ``t[i]`` of a tuple-valued argument; nested tuples are flattened too.  Inside the function ``t[i]`` becomes the
item's parameter (a whole-tuple use rebuilds the tuple from them).
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule
from ember.transform import Pass, module_pass

from ..analysis.vars import remove_all_unused
from ..expr import Call, Function, Tuple, TupleGetItem, Var
from ..expr_functor import ExprMutator, ExprVisitor
from ..struct_info import TupleStructInfo
from .canonicalize_bindings import _canonicalize

__all__ = ["ExpandTupleArguments"]


def _flatten_params(var: Var, sinfo, out: list):
    """The new parameters for ``var`` and the tuple expression that stands for it."""
    if not isinstance(sinfo, TupleStructInfo):
        new = Var(var.name_hint if not out else f"{var.name_hint}_{len(out)}", sinfo)
        out.append(new)
        return new
    return Tuple([_flatten_params(var, f, out) for f in sinfo.fields])


def _flatten_arg(arg, out: list) -> None:
    """The items of a tuple argument, in order: a literal's fields, a tuple-valued
    expression's ``arg[i]`` (nested tuples flattened too)."""
    if isinstance(arg, Tuple):
        for f in arg.fields:
            _flatten_arg(f, out)
        return
    sinfo = arg.struct_info_or_none()
    if isinstance(sinfo, TupleStructInfo):
        for i in range(len(sinfo.fields)):
            _flatten_arg(TupleGetItem(arg, i), out)
        return
    out.append(arg)


class _Uses(ExprVisitor):
    def __init__(self):
        self.escaping: set = set()
        self.calls: list = []

    def visit_call_(self, op: Call) -> None:
        if isinstance(op.op, GlobalVar):
            self.calls.append(op)
        else:
            self.visit_expr(op.op)
        for a in op.args:
            self.visit_expr(a)

    def visit_global_var_(self, op: GlobalVar) -> None:
        self.escaping.add(op.name_hint)


class _Body(ExprMutator):
    def __init__(self, stand_in: dict):
        super().__init__()
        self.stand_in = stand_in

    def visit_var_(self, op: Var):
        found = self.stand_in.get(op)
        return self.builder_.normalize(found) if found is not None else super().visit_var_(op)

    def visit_tuple_getitem_(self, op: TupleGetItem):
        tup = self.visit_expr(op.tuple_value)
        if isinstance(tup, Tuple):
            return tup.fields[op.index]
        return super().visit_tuple_getitem_(op)


class _Callers(ExprMutator):
    def __init__(self, mod: IRModule, names: set):
        super().__init__(mod)
        self.names = names

    def visit_call_(self, op: Call):
        call = super().visit_call_(op)
        if not isinstance(call.op, GlobalVar) or call.op.name_hint not in self.names:
            return call
        args: list = []
        for a in call.args:
            _flatten_arg(a, args)
        return self.builder_.normalize(Call(call.op, args, call.attrs, call.sinfo_args))


def _expand(mod: IRModule, ctx) -> IRModule:
    uses = _Uses()
    for f in mod.functions.values():
        if isinstance(f, Function):
            uses.visit_expr(f)
    candidates = {}
    for gv, f in mod.functions.items():
        if not isinstance(f, Function) or "global_symbol" in (f.attrs or {}) or gv.name_hint in uses.escaping:
            continue
        if any(isinstance(p.struct_info, TupleStructInfo) for p in f.params):
            candidates[gv.name_hint] = f
    if not candidates:
        return mod
    functions = {}
    for gv, f in mod.functions.items():
        if gv.name_hint in candidates:
            params, stand_in = [], {}
            for p in f.params:
                if isinstance(p.struct_info, TupleStructInfo):
                    flat: list = []
                    stand_in[p] = _flatten_params(p, p.struct_info, flat)
                    params += flat
                else:
                    params.append(p)
            body = _Body(stand_in).visit_expr(f.body)
            # items read through a bound copy of the tuple fold to the parameters, the copy goes
            f = remove_all_unused(_canonicalize(Function(params, body, f.ret_struct_info, f.is_pure, f.attrs), mod))
        functions[gv] = f
    new_mod = mod.with_functions(functions)
    callers = _Callers(new_mod, set(candidates))
    return new_mod.with_functions({gv: (callers.visit_expr(f) if isinstance(f, Function) else f)
                                   for gv, f in new_mod.functions.items()})


def ExpandTupleArguments() -> Pass:  # noqa: N802 - TVM's name
    """Expand tuple parameters of private functions, then canonicalise bindings and remove
    dead code, as TVM's pass does (it runs the same three steps, even when nothing expands)."""
    from ember.transform import Sequential

    from .canonicalize_bindings import CanonicalizeBindings
    from .dead_code_elimination import DeadCodeElimination

    inner = module_pass(_expand, opt_level=0, name="ExpandTupleArgumentsInner")
    return Sequential([inner, CanonicalizeBindings(), DeadCodeElimination()], name="ExpandTupleArguments")

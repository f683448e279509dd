"""CanonicalizeBindings: remove trivial bindings and give each value its simplest name.

Three steps per Relax function, as TVM's pass does:

1. Symbolic dims defined by an ``R.match_cast`` whose value already has known dims are
   replaced by those dims everywhere (``match_cast(A: [16, 16], [N, M])`` gives N=16,
   M=16); two casts giving one dim different values raise a ValueError.
2. Trivial bindings are removed and their uses renamed: ``y = x``, a ``match_cast`` to the
   value's own struct info, ``y = t[i]`` of a known tuple ``t = (..., x, ...)``, and a
   tuple rebuilt from all of another tuple's items.  When ``y`` is a Var used after its
   dataflow block and ``x`` a DataflowVar, ``x``'s binding is renamed to ``y`` instead.
   Uses of variables bound to constants (directly or through a known tuple) become the
   constant; those bindings stay (dead-code elimination removes them).
3. A non-dataflow Var bound in a dataflow block and used only inside that block becomes a
   DataflowVar (it is no longer an output of the block).
"""

from __future__ import annotations

from ember.ir import replace, structural_equal
from ember.ir import Var as TirVar
from ember.transform import Pass

from .._arith import simplify
from ..expr import (
    Constant, DataflowBlock, DataflowVar, Function, MatchCast, Tuple, TupleGetItem, Var,
    VarBinding,
)
from ..expr_functor import ExprMutator, ExprVisitor
from ..struct_info import PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo, shape_values
from .bind_symbolic_vars import _SymbolicBinder
from .pass_wrappers import relax_module_pass

__all__ = ["CanonicalizeBindings"]


# -- 1. symbolic dims known from match_cast ---------------------------------------------------

def _dim_pairs(target, value, out: list) -> None:
    """(target dim, value dim) pairs of two struct infos of the same kind."""
    if isinstance(target, TensorStructInfo) and isinstance(value, TensorStructInfo):
        a, b = shape_values(target), shape_values(value)
        if a is not None and b is not None and len(a) == len(b):
            out.extend(zip(a, b))
    elif isinstance(target, ShapeStructInfo) and isinstance(value, ShapeStructInfo):
        if target.values is not None and value.values is not None and len(target.values) == len(value.values):
            out.extend(zip(target.values, value.values))
    elif isinstance(target, PrimStructInfo) and isinstance(value, PrimStructInfo):
        if target.value is not None and value.value is not None:
            out.append((target.value, value.value))
    elif isinstance(target, TupleStructInfo) and isinstance(value, TupleStructInfo):
        if len(target.fields) == len(value.fields):
            for t, v in zip(target.fields, value.fields):
                _dim_pairs(t, v, out)


def _tir_vars_of(sinfo) -> list:
    from ..analysis.symbolic_vars import tir_vars_in_struct_info

    return tir_vars_in_struct_info(sinfo) if sinfo is not None else []


class _SymbolicInference(ExprVisitor):
    """Values of the symbolic dims that match_casts define from already-known dims."""

    def __init__(self, func: Function):
        self.defined: set = set()
        for p in func.params:
            self.defined.update(_tir_vars_of(p.struct_info))
        self.known: dict = {}

    def visit_function_(self, op: Function) -> None:
        return  # nested functions define their own dims

    def visit_match_cast_(self, binding: MatchCast) -> None:
        super().visit_match_cast_(binding)
        pairs: list = []
        _dim_pairs(binding.struct_info, binding.value.struct_info_or_none(), pairs)
        for target, value in pairs:
            if not isinstance(target, TirVar) or target is value or target in self.defined and target not in self.known:
                continue
            value = simplify(_substitute_known(value, self.known))
            if target in self.known:
                if not structural_equal(simplify(self.known[target]), value):
                    raise ValueError(
                        f"CanonicalizeBindings: MatchCast statements must be consistent: symbolic variable "
                        f"{target.name} is {self.known[target]} from an earlier R.match_cast and {value} "
                        f"from the match_cast of {binding.var.name_hint}")
                continue
            if all(v in self.defined for v in _prim_vars(value)):
                self.known[target] = value
        self.defined.update(_tir_vars_of(binding.struct_info))


def _prim_vars(expr) -> list:
    from ember.tir.functor import post_order_visit

    found: list = []
    post_order_visit(expr, lambda n: found.append(n) if isinstance(n, TirVar) else None)
    return found


def _substitute_known(expr, known: dict):
    from ember.tir.functor import substitute

    return substitute(expr, lambda v: known.get(v)) if known else expr


class _Binder(_SymbolicBinder):
    """BindSymbolicVars' rewriter, also substituting the struct info match_casts check."""

    def visit_match_cast_(self, binding: MatchCast) -> None:
        from ..struct_info_subst import substitute_sinfo

        sinfo = substitute_sinfo(binding.struct_info, self.vmap)
        super().visit_match_cast_(binding if sinfo is binding.struct_info else replace(binding, struct_info=sinfo))


# -- 2. the plan: which bindings go, which uses are renamed ----------------------------------

class _Planner(ExprVisitor):
    def __init__(self):
        self.block = None  # the dataflow block being visited (None outside one)
        self.home: dict = {}  # var -> its dataflow block
        self.used_outside: set = set()
        self.trivial: dict = {}  # var -> the var it merely renames (binding order)
        self.constant: dict = {}  # var -> the constant it holds
        self.tuple_of: dict = {}  # var -> the Tuple literal bound to it
        self.item_of: dict = {}  # var -> (tuple var, index) for var = t[i]

    def visit_binding_block_(self, block) -> None:
        outer, self.block = self.block, (block if isinstance(block, DataflowBlock) else None)
        super().visit_binding_block_(block)
        self.block = outer

    visit_dataflow_block_ = visit_binding_block_

    def visit_function_(self, op: Function) -> None:
        outer, self.block = self.block, None
        super().visit_function_(op)
        self.block = outer

    def visit_if_(self, op) -> None:
        outer, self.block = self.block, None
        super().visit_if_(op)
        self.block = outer

    def visit_var_(self, op: Var) -> None:
        home = self.home.get(op)
        if home is not None and home is not self.block:
            self.used_outside.add(op)

    def visit_var_def_(self, var: Var) -> None:
        if self.block is not None:
            self.home[var] = self.block

    def visit_var_binding_(self, binding: VarBinding) -> None:
        super().visit_var_binding_(binding)
        var, value = binding.var, binding.value
        if isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var):
            self.item_of[var] = (value.tuple_value, value.index)
            known = self.tuple_of.get(value.tuple_value)
            if known is not None and value.index < len(known.fields):
                value = known.fields[value.index]
        if isinstance(value, Tuple):
            self.tuple_of[var] = value
            source = self._round_trip(value)
            if source is not None:
                value = source
        if isinstance(value, Var):
            self.trivial[var] = value
        elif isinstance(value, Constant):
            self.constant[var] = value

    def _round_trip(self, tup: Tuple):
        """``t`` if ``tup`` is ``(t[0], t[1], ..., t[n-1])`` of a tuple ``t`` of n items."""
        items = [self.item_of.get(f) if isinstance(f, Var) else None for f in tup.fields]
        if not items or any(i is None for i in items):
            return None
        source = items[0][0]
        sinfo = source.struct_info_or_none()
        if not isinstance(sinfo, TupleStructInfo) or len(sinfo.fields) != len(items):
            return None
        return source if all(t is source and i == k for k, (t, i) in enumerate(items)) else None

    def visit_match_cast_(self, binding: MatchCast) -> None:
        super().visit_match_cast_(binding)
        value = binding.value
        if isinstance(value, Var) and structural_equal(value.struct_info, binding.struct_info, map_free_vars=False):
            self.trivial[binding.var] = value
        elif isinstance(value, Constant) and structural_equal(value.struct_info, binding.struct_info,
                                                              map_free_vars=False):
            self.constant[binding.var] = value

    def plan(self):
        # a use of y in a removed ``z = y`` counts where z is used
        outside = set(self.used_outside)
        changed = True
        while changed:
            changed = False
            for var, parent in self.trivial.items():
                if var in outside and parent in self.home and parent not in outside:
                    outside.add(parent)
                    changed = True
        replace_usage: dict = dict(self.constant)
        replace_binding: dict = {}
        remove: set = set()
        for var, parent in self.trivial.items():
            bound_to = parent
            while bound_to in self.trivial:
                bound_to = self.trivial[bound_to]
            while bound_to in replace_binding:
                bound_to = replace_binding[bound_to]
            remove.add(var)
            if isinstance(var, DataflowVar) or not isinstance(bound_to, DataflowVar) or var not in outside:
                replace_usage[var] = bound_to
            else:  # Var = DataflowVar with the Var used later: the DataflowVar's binding takes its name
                replace_binding[bound_to] = var
                replace_usage[bound_to] = var
        keep_var = {v for v in self.constant if v in outside}
        return replace_usage, replace_binding, remove, keep_var


class _Rewriter(ExprMutator):
    def __init__(self, plan, mod=None):
        super().__init__(mod)
        self.replace_usage, self.replace_binding, self.remove, _ = plan

    def _resolve(self, var: Var):
        seen = 0
        out = var
        while isinstance(out, Var) and out in self.replace_usage and seen < 1000:
            out = self.replace_usage[out]
            seen += 1
        return self.var_remap_.get(id(out), out) if isinstance(out, Var) else out

    def visit_var_(self, op: Var):
        return self._resolve(op)

    def visit_tuple_getitem_(self, op: TupleGetItem):
        tup = op.tuple_value
        if isinstance(tup, Var):
            known = self._tuple_literal(tup)
            if known is not None and op.index < len(known.fields):
                field = known.fields[op.index]
                if isinstance(field, (Var, Constant)):
                    return self.visit_expr(field)
        return super().visit_tuple_getitem_(op)

    def _tuple_literal(self, var: Var):
        value = self.lookup_binding(self._resolve(var))
        return value if isinstance(value, Tuple) else None

    def _emit(self, binding, value) -> None:
        new_def = self.replace_binding.get(binding.var)
        var = new_def if new_def is not None else binding.var
        if isinstance(binding, MatchCast):
            var = self.var_remap_.get(id(var), var)
            if var is not binding.var:
                self.set_var_remap(binding.var, var)
            if value is binding.value and var is binding.var:
                self.builder_.emit_normalized(binding)
            else:
                self.builder_.emit_normalized(replace(binding, var=var, value=value))
            return
        if value is binding.value and var is binding.var:
            self.builder_.emit_normalized(binding)
            return
        value = self.builder_.normalize(value)
        new_var = self.with_struct_info(var, value.struct_info) if value is not binding.value else var
        for old in (binding.var, var):
            if new_var is not old:
                self.set_var_remap(old, new_var)
        self.builder_.emit_normalized(VarBinding(new_var, value))

    def visit_var_binding_(self, binding: VarBinding) -> None:
        if binding.var in self.remove:
            return
        value = binding.value
        if isinstance(value, TupleGetItem):  # a binding of t[i] stays a binding of t[i]
            tup = self.visit_expr(value.tuple_value)
            new = value if tup is value.tuple_value else self.builder_.normalize(TupleGetItem(tup, value.index))
        else:
            new = self.visit_expr(value)
        self._emit(binding, new)

    def visit_match_cast_(self, binding: MatchCast) -> None:
        if binding.var in self.remove:
            return
        value = self.visit_expr(binding.value)
        self._emit(binding, value if value is binding.value else self.builder_.normalize(value))


# -- 3. block outputs used nowhere else become DataflowVars ------------------------------------

class _Uses(_Planner):
    """Reuses the planner's bookkeeping of where each variable is used."""


class _ToDataflowVars(ExprMutator):
    def __init__(self, targets: set, mod=None):
        super().__init__(mod)
        self.targets = targets

    def visit_var_def_(self, var: Var) -> Var:
        found = self.var_remap_.get(id(var))
        if found is not None:
            return found
        if var in self.targets:
            new = DataflowVar(var.name_hint, var.struct_info)
            self.set_var_remap(var, new)
            return new
        return var


def _canonicalize(func: Function, mod) -> Function:
    original = func
    inference = _SymbolicInference(func)
    inference.visit_expr(func.body)
    if inference.known:
        func = _Binder(inference.known, mod).visit_expr(func)
    planner = _Planner()
    planner.visit_expr(func)
    plan = planner.plan()
    replace_usage, replace_binding, remove, keep_var = plan
    if replace_usage or replace_binding or remove or planner.tuple_of:  # t[i] of a known tuple folds too
        func = _Rewriter(plan, mod).visit_expr(func)
    uses = _Uses()
    uses.visit_expr(func)
    targets = {v for v in uses.home if not isinstance(v, DataflowVar) and v not in uses.used_outside
               and v not in keep_var}
    if targets:
        func = _ToDataflowVars(targets, mod).visit_expr(func)
    return _refine_return(func, original) if func is not original else func


def _visible_body_sinfo(func: Function):
    from ..analysis.erase_to_well_defined import erase_to_well_defined

    body_sinfo = func.body.struct_info_or_none()
    if body_sinfo is None:
        return None
    defined = {v: v for p in func.params for v in _tir_vars_of(p.struct_info)}
    return erase_to_well_defined(body_sinfo, defined)


def _refine_return(func: Function, original: Function) -> Function:
    """A return struct info that was inferred from the body (not written by hand) follows
    the simplified body when that is now more specific."""
    from ..struct_info import is_base_of

    ret = func.ret_struct_info
    before = _visible_body_sinfo(original)
    if before is None or not structural_equal(ret, before, map_free_vars=False):
        return func  # an explicit annotation: keep it
    sinfo = _visible_body_sinfo(func)
    if sinfo is None or structural_equal(ret, sinfo, map_free_vars=False) or not is_base_of(ret, sinfo):
        return func
    return Function(func.params, func.body, sinfo, func.is_pure, func.attrs)


def CanonicalizeBindings() -> Pass:  # noqa: N802 - TVM's name
    """Remove trivial bindings, fold known symbolic dims and narrow block outputs (see above)."""
    return relax_module_pass(_canonicalize, "CanonicalizeBindings", 1)


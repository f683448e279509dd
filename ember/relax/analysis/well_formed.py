"""The executable spec of Relax: ``well_formed`` / ``check_well_formed``.

A function is well formed when: every variable is defined (as a parameter or by an
earlier binding in scope) before use and defined only once; DataflowVars are defined
only inside dataflow blocks and used only in the block that defines them; call
arguments are in A-normal form (leaves, or tuples of leaves); every expression has
struct info; called GlobalVars name functions of the module; dataflow blocks hold no
``If`` and no impure call, and a function marked pure calls nothing impure (unless it
carries ``relax.force_pure``, as lowered functions do).  Tuple fields and a TupleGetItem's
tuple are leaves, an If's condition is a leaf and its branches SeqExprs; the symbolic
variables of a binding's struct info are defined (by a parameter or a match_cast); a
binding's annotation does not contradict its value, and call_tir matches its PrimFunc
(well_formed_sinfo.py).  A symbolic variable shared by two functions is accepted (TVM
refuses it; user passes that outline code keep their callers' variables).
``check_struct_info=False`` lets expressions lack struct info.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule, Op

from ..expr import (
    Call, Constant, DataflowBlock, DataflowVar, DataTypeImm, Expr, ExternFunc, Function, If,
    PrimValue, SeqExpr, ShapeExpr, StringImm, Tuple, TupleGetItem, Var,
)
from ..expr_functor import ExprVisitor
from .vars import is_pure_call
from .symbolic_vars import definable_tir_vars_in_struct_info, tir_vars_in_struct_info
from .well_formed_sinfo import binding_conflict, call_tir_errors

__all__ = ["well_formed", "check_well_formed", "WellFormedError"]

_LEAF = (Var, GlobalVar, Constant, ShapeExpr, PrimValue, StringImm, DataTypeImm, ExternFunc, Op)


class WellFormedError(ValueError):
    """Raised by ``check_well_formed``; the message names the function and the offending node."""


class _Checker(ExprVisitor):
    def __init__(self, mod: IRModule | None, func_name: str, check_struct_info: bool = True):
        self.mod, self.func_name = mod, func_name
        self.check_struct_info = check_struct_info
        self.pure_function = True
        self.force_pure = False
        self.errors: list[str] = []
        self.defined: set[int] = set()
        self.scopes: list[set[int]] = []
        self.dataflow_vars: set[int] | None = None
        self.keep: list = []
        self.tir_defined: set[int] = set()  # symbolic vars defined by params and match_casts in scope

    def error(self, msg: str) -> None:
        self.errors.append(f"in function {self.func_name!r}: {msg}")

    def _define(self, var: Var) -> None:
        if id(var) in self.defined:
            self.error(f"variable {var.name_hint!r} is defined more than once")
        self.defined.add(id(var))
        self.keep.append(var)
        if self.scopes:
            self.scopes[-1].add(id(var))

    def visit_expr(self, expr) -> None:
        if (self.check_struct_info and isinstance(expr, Expr) and not isinstance(expr, Var)
                and expr.struct_info_or_none() is None):
            self.error(f"{type(expr).__name__} has no struct_info (not normalised)")
        super().visit_expr(expr)

    def visit_var_(self, op: Var) -> None:
        if id(op) not in self.defined:
            self.error(f"variable {op.name_hint!r} is used before it is defined")

    def visit_dataflow_var_(self, op: DataflowVar) -> None:
        if self.dataflow_vars is None or id(op) not in self.dataflow_vars:
            self.error(f"DataflowVar {op.name_hint!r} is used outside the dataflow block that defines it")
        else:
            self.visit_var_(op)

    def visit_global_var_(self, op: GlobalVar) -> None:
        if self.mod is not None and op.name_hint not in self.mod:
            self.error(f"GlobalVar {op.name_hint!r} does not name a function of the module")

    def visit_call_(self, op: Call) -> None:
        if not is_pure_call(op, self.mod, unknown=True):
            if self.dataflow_vars is not None:  # even under relax.force_pure
                self.error(f"impure call to {_callee(op)} inside a dataflow block")
            elif self.pure_function and not self.force_pure:
                self.error(f"impure call to {_callee(op)} in a function marked pure (use pure=False)")
        for i, a in enumerate(op.args):
            if not _is_leaf_or_tuple(a):
                self.error(f"argument {i} of a call to {_callee(op)} is a nested {type(a).__name__} (not A-normal form)")
        for sinfo in op.sinfo_args or ():
            undefined = [v.name for v in tir_vars_in_struct_info(sinfo) if id(v) not in self.tir_defined]
            if undefined:
                self.error(f"a call to {_callee(op)} declares a result over symbolic variables {undefined} "
                           "that no parameter or match_cast defines")
        if isinstance(op.op, Op) and op.op.name in ("relax.call_tir", "relax.call_tir_inplace"):
            for msg in call_tir_errors(op, self.mod):
                self.error(msg)
        super().visit_call_(op)

    def visit_tuple_getitem_(self, op: TupleGetItem) -> None:
        if not _is_leaf_or_tuple(op.tuple_value):
            self.error(f"the tuple of a TupleGetItem is a nested {type(op.tuple_value).__name__} (not A-normal form)")
        super().visit_tuple_getitem_(op)

    def visit_function_(self, op: Function) -> None:
        outer = (self.pure_function, self.force_pure)
        outer_dataflow, self.dataflow_vars = self.dataflow_vars, None  # a nested function has its own blocks
        self.pure_function = op.is_pure
        self.force_pure = bool(op.attrs.get("relax.force_pure", False))  # lowered code: impure calls allowed
        if self.force_pure and not op.is_pure:
            self.error("relax.force_pure is set on a function not marked pure (both go together)")
        self.scopes.append(set())
        outer_tir = set(self.tir_defined)
        for p in op.params:
            self._define(p)
            self.tir_defined |= {id(v) for v in definable_tir_vars_in_struct_info(p.struct_info)}
        self.visit_expr(op.body)
        self.tir_defined = outer_tir
        self._leave_scope()
        self.pure_function, self.force_pure = outer
        self.dataflow_vars = outer_dataflow

    def visit_if_(self, op: If) -> None:
        if self.dataflow_vars is not None:
            self.error("an If expression appears inside a dataflow block")
        if not isinstance(op.cond, _LEAF):
            self.error(f"the condition of an If is a {type(op.cond).__name__}, not a variable or constant")
        self.visit_expr(op.cond)
        for branch in (op.true_branch, op.false_branch):
            if not isinstance(branch, SeqExpr):
                self.error(f"a branch of an If is a {type(branch).__name__}, not a SeqExpr")
            self.scopes.append(set())
            self.visit_expr(branch)
            self._leave_scope()

    def _leave_scope(self) -> None:
        for vid in self.scopes.pop():
            self.defined.discard(vid)

    def visit_dataflow_block_(self, block: DataflowBlock) -> None:
        outer = self.dataflow_vars
        self.dataflow_vars = set()
        local: list = []
        for b in block.bindings:
            self.visit_binding(b)
            if isinstance(b.var, DataflowVar):
                self.dataflow_vars.add(id(b.var))
                local.append(b.var)
        for v in local:
            self.defined.discard(id(v))
        self.dataflow_vars = outer

    def visit_binding_block_(self, block) -> None:
        for b in block.bindings:
            if isinstance(b.var, DataflowVar):
                self.error(f"DataflowVar {b.var.name_hint!r} is defined outside a dataflow block")
            self.visit_binding(b)

    def visit_var_def_(self, var: Var) -> None:
        self._define(var)

    def visit_var_binding_(self, binding) -> None:
        if isinstance(binding.value, Function):  # a local function may call itself
            self.visit_var_def(binding.var)
            self.visit_expr(binding.value)
            return
        value_sinfo = binding.value.struct_info_or_none() if isinstance(binding.value, Expr) else None
        why = binding_conflict(binding.var.struct_info_or_none(), value_sinfo)
        if why:
            self.error(f"variable {binding.var.name_hint!r} is {why}")
        self._check_symbolic_vars(binding.var)
        super().visit_var_binding_(binding)

    def visit_match_cast_(self, binding) -> None:
        self.tir_defined |= {id(v) for v in definable_tir_vars_in_struct_info(binding.struct_info)}
        self._check_symbolic_vars(binding.var)
        super().visit_match_cast_(binding)

    def _check_symbolic_vars(self, var: Var) -> None:
        sinfo = var.struct_info_or_none()
        undefined = [v.name for v in tir_vars_in_struct_info(sinfo) if id(v) not in self.tir_defined] if sinfo else []
        if undefined:
            self.error(f"the struct info of {var.name_hint!r} uses symbolic variables {undefined} that no "
                       "parameter or match_cast defines")

    def visit_tuple_(self, op: Tuple) -> None:
        for i, f in enumerate(op.fields):
            if not _is_leaf_or_tuple(f):
                self.error(f"field {i} of a tuple is a nested {type(f).__name__} (not A-normal form)")
        super().visit_tuple_(op)

    def visit_seq_expr_(self, op: SeqExpr) -> None:
        super().visit_seq_expr_(op)


def _callee(call: Call) -> str:
    op = call.op
    return getattr(op, "name", None) or getattr(op, "name_hint", None) or type(op).__name__


def _is_leaf_or_tuple(e) -> bool:
    if isinstance(e, _LEAF):
        return True
    if isinstance(e, Tuple):
        return all(_is_leaf_or_tuple(f) for f in e.fields)
    return isinstance(e, TupleGetItem) and False


def _errors(obj, mod: IRModule | None, check_struct_info: bool = True) -> list[str]:
    if isinstance(obj, IRModule):
        errs: list[str] = []
        for gv, func in obj.functions.items():
            if isinstance(func, Function):
                errs.extend(_errors_of_function(func, obj, gv.name_hint, check_struct_info))
                symbol = (func.attrs or {}).get("global_symbol")
                if symbol is not None and str(symbol) != gv.name_hint:
                    errs.append(f"function {gv.name_hint!r} has global_symbol {str(symbol)!r}: a public function's "
                                "name must be its symbol (run NormalizeGlobalVar)")
        return errs
    if isinstance(obj, Function):
        return _errors_of_function(obj, mod, obj.attrs.get("global_symbol", "<anonymous>"), check_struct_info)
    raise TypeError(f"well_formed expects an IRModule or a relax.Function, got {type(obj).__name__}")


def _errors_of_function(func: Function, mod, name: str, check_struct_info: bool = True) -> list[str]:
    checker = _Checker(mod, name, check_struct_info)
    checker.visit_expr(func)
    return checker.errors


def well_formed(obj, check_struct_info: bool = True) -> bool:
    """True when the module (or function) satisfies the rules in the module docstring
    (``check_struct_info=False``: expressions may lack struct info)."""
    return not _errors(obj, None, check_struct_info)


def check_well_formed(obj) -> None:
    """Raise ``WellFormedError`` listing every violation."""
    errs = _errors(obj, None)
    if errs:
        raise WellFormedError("Relax IR is not well formed:\n  " + "\n  ".join(errs))

"""Variable queries: free_vars, bound_vars, all_vars, all_global_vars, get_var2val,
and ``remove_all_unused`` (drop bindings whose values are pure and unused)."""

from __future__ import annotations

from ember.ir import GlobalVar, Op

from ..expr import (
    Call, DataflowBlock, Expr, Function, SeqExpr, Var, VarBinding,
)
from ..expr_functor import ExprVisitor

__all__ = [
    "free_vars", "bound_vars", "all_vars", "all_global_vars", "get_var2val", "remove_all_unused",
    "is_pure_call", "used_vars",
]


class _VarCollector(ExprVisitor):
    def __init__(self):
        self.used: dict[int, Var] = {}
        self.bound: dict[int, Var] = {}
        self.globals: dict[str, GlobalVar] = {}

    def visit_var_(self, op: Var) -> None:
        self.used.setdefault(id(op), op)

    def visit_var_def_(self, var: Var) -> None:
        self.bound.setdefault(id(var), var)

    def visit_global_var_(self, op: GlobalVar) -> None:
        self.globals.setdefault(op.name_hint, op)

    def visit_call_(self, op: Call) -> None:
        super().visit_call_(op)


def _collect(expr: Expr) -> _VarCollector:
    c = _VarCollector()
    c.visit_expr(expr)
    return c


def free_vars(expr: Expr) -> list[Var]:
    """Variables used in ``expr`` but not bound inside it (in order of first use)."""
    c = _collect(expr)
    return [v for k, v in c.used.items() if k not in c.bound]


def bound_vars(expr: Expr) -> list[Var]:
    """Variables bound in ``expr`` (parameters and bindings)."""
    return list(_collect(expr).bound.values())


def all_vars(expr: Expr) -> list[Var]:
    """Every variable of ``expr``, bound or used."""
    c = _collect(expr)
    out = dict(c.bound)
    for k, v in c.used.items():
        out.setdefault(k, v)
    return list(out.values())


def used_vars(expr: Expr) -> set[int]:
    return set(_collect(expr).used)


def all_global_vars(expr: Expr) -> list[GlobalVar]:
    return list(_collect(expr).globals.values())


def get_var2val(func: Function) -> dict:
    """Every binding of ``func``: Var → bound value."""
    out: dict = {}

    class _V(ExprVisitor):
        def visit_var_binding_(self, b: VarBinding) -> None:
            out[b.var] = b.value
            super().visit_var_binding_(b)

    _V().visit_expr(func)
    return out


def is_pure_call(value, mod=None, unknown: bool = False) -> bool:
    """True when evaluating ``value`` has no side effect (so an unused binding can go).
    A call of a GlobalVar is as pure as that function in ``mod``; ``unknown`` is the
    answer when the function cannot be found."""
    if not isinstance(value, Call):
        return True
    op = value.op
    if isinstance(op, Op):
        return bool(op.get_attr("FPurity", True))
    if isinstance(op, GlobalVar):
        func = mod[op.name_hint] if mod is not None and op.name_hint in mod else None
        return unknown if func is None else bool(getattr(func, "is_pure", True))
    sinfo = op.struct_info_or_none() if isinstance(op, Expr) else None
    if sinfo is not None and hasattr(sinfo, "purity"):
        return sinfo.purity
    return False


def _uses(e) -> set[int]:
    return used_vars(e) if isinstance(e, Expr) else set()


def _removable(binding, block, mod) -> bool:
    """Unused VarBindings go when their value is pure (all of a dataflow block's are)."""
    if not isinstance(binding, VarBinding):
        return False
    return isinstance(block, DataflowBlock) or is_pure_call(binding.value, mod)


def remove_all_unused(func: Function | SeqExpr, mod=None) -> Function | SeqExpr:
    """Drop pure bindings whose variables are never used (iterating to a fixpoint) from a
    function or a SeqExpr; ``mod`` tells whether calls of its functions are pure."""
    if isinstance(func, SeqExpr):
        seq = _remove_unused_in_seq(func, mod)
        return func if seq is None else seq
    body = func.body
    if not isinstance(body, SeqExpr):
        return func
    seq = _remove_unused_in_seq(body, mod)
    if seq is None:
        return func
    return Function(func.params, seq, func.ret_struct_info, func.is_pure, func.attrs)


def _remove_unused_in_seq(body: SeqExpr, mod) -> SeqExpr | None:
    """The SeqExpr without its unused pure bindings, or None when none goes."""
    blocks = list(body.blocks)
    changed = False
    while True:
        needed = _uses(body.body)
        for block in blocks:
            for b in block.bindings:
                needed |= _uses(b.value)
        new_blocks = []
        removed = False
        for block in blocks:
            keep = [b for b in block.bindings if id(b.var) in needed or not _removable(b, block, mod)]
            if len(keep) != len(block.bindings):
                removed = True
            if keep:
                new_blocks.append(type(block)(keep) if len(keep) != len(block.bindings) else block)
            elif block.bindings:
                removed = True
        blocks = new_blocks
        if not removed:
            break
        changed = True
    return SeqExpr(blocks, body.body) if changed else None



"""The symbolic (TIR) variables of Relax struct info and functions.

A variable is *definable* by a struct info when matching a value against it fixes the
variable's value: it appears alone as a dimension (``n`` in ``(n, 2 * m)``) or as the
value of a ``PrimStructInfo``; ``m`` above is only *used*. A function *defines* the
definable variables of its parameters and of its ``match_cast`` bindings; the others
it uses are *free*.
"""

from __future__ import annotations

from ember.ir import IntImm, PrimExpr, Var as TirVar
from ember.tir.functor import collect

from ..expr import Function, ShapeExpr
from ..struct_info import FuncStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo

__all__ = [
    "tir_vars_in_struct_info", "definable_tir_vars_in_struct_info", "collect_non_negative_expressions",
    "defined_symbolic_vars", "free_symbolic_vars",
]


def _dims(sinfo) -> tuple:
    """The dimension expressions of a shape or tensor struct info (empty when unknown)."""
    if isinstance(sinfo, ShapeStructInfo):
        return tuple(sinfo.values or ())
    if isinstance(sinfo, TensorStructInfo) and isinstance(sinfo.shape, ShapeExpr):
        return tuple(sinfo.shape.values)
    return ()


def _walk(sinfo, on_dims, on_prim) -> None:
    if isinstance(sinfo, ShapeStructInfo | TensorStructInfo):
        on_dims(_dims(sinfo))
    elif isinstance(sinfo, PrimStructInfo) and sinfo.value is not None:
        on_prim(sinfo.value)
    elif isinstance(sinfo, TupleStructInfo):
        for field in sinfo.fields:
            _walk(field, on_dims, on_prim)
    elif isinstance(sinfo, FuncStructInfo):
        for param in sinfo.params or ():
            _walk(param, on_dims, on_prim)
        _walk(sinfo.ret, on_dims, on_prim)


def _unique(items) -> list:
    seen: dict[int, object] = {}
    for item in items:
        seen.setdefault(id(item), item)
    return list(seen.values())


def _vars_of(expr) -> list:
    return collect(expr, lambda n: isinstance(n, TirVar)) if isinstance(expr, PrimExpr) else []


def tir_vars_in_struct_info(sinfo) -> list:
    """Every TIR variable the struct info mentions, in order of first appearance."""
    found: list = []
    _walk(sinfo, lambda dims: [found.extend(_vars_of(d)) for d in dims], lambda v: found.extend(_vars_of(v)))
    return _unique(found)


def definable_tir_vars_in_struct_info(sinfo) -> list:
    """The TIR variables a match against ``sinfo`` would define (bare dims, prim values)."""
    found: list = []
    _walk(sinfo, lambda dims: found.extend(d for d in dims if isinstance(d, TirVar)),
          lambda v: found.extend([v] if isinstance(v, TirVar) else []))
    return _unique(found)


def collect_non_negative_expressions(sinfo) -> list:
    """The expressions that must be non-negative for ``sinfo`` to describe a value: its
    symbolic dims (constants need no check), each once, in order of first appearance."""
    found: list = []
    _walk(sinfo, found.extend, lambda v: None)
    unique: list = []
    for expr in found:
        if isinstance(expr, PrimExpr) and not isinstance(expr, IntImm) and not any(_same(expr, u) for u in unique):
            unique.append(expr)
    return unique


def _same(a, b) -> bool:
    from ember.ir import structural_equal

    return structural_equal(a, b, map_free_vars=False)


def _match_casts(func: Function) -> list:
    return [b for b in _bindings(func) if type(b).__name__ == "MatchCast"]


def _bindings(func: Function) -> list:
    """Every binding of ``func`` (nested scopes included), in order."""
    from ember.relax.expr_functor import ExprVisitor

    found: list = []

    class Finder(ExprVisitor):
        def visit_binding(self, binding):
            found.append(binding)
            super().visit_binding(binding)

    Finder().visit_expr(func)
    return found


def defined_symbolic_vars(func: Function) -> list:
    """The TIR variables ``func`` defines: by its parameters, then by its match_casts."""
    found: list = []
    for param in func.params:
        found.extend(definable_tir_vars_in_struct_info(param.struct_info))
    for cast in _match_casts(func):
        found.extend(definable_tir_vars_in_struct_info(cast.struct_info))
    return _unique(found)


def free_symbolic_vars(func: Function) -> list:
    """The TIR variables ``func`` uses (in the struct info of its params, of every bound
    variable and match_cast, of its return) but does not define."""
    defined = {id(v) for v in defined_symbolic_vars(func)}
    used: list = []
    for param in func.params:
        used.extend(tir_vars_in_struct_info(param.struct_info))
    for binding in _bindings(func):
        used.extend(tir_vars_in_struct_info(binding.var.struct_info))
        if type(binding).__name__ == "MatchCast":
            used.extend(tir_vars_in_struct_info(binding.struct_info))
    if func.ret_struct_info is not None:
        used.extend(tir_vars_in_struct_info(func.ret_struct_info))
    return [v for v in _unique(used) if id(v) not in defined]

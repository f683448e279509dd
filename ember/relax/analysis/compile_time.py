"""computable_at_compile_time: the variables of a function whose values depend only on
its compile-time parameters.

A function with the attribute ``num_input`` takes its first ``num_input`` parameters at
run time; the parameters after them (weights) are known when compiling.  A binding is
computable at compile time when every Relax variable its value reads is, and every TIR
variable its value or its result's struct info mentions is defined by compile-time
values (a compile-time parameter's shape, a compile-time ``match_cast``).  Lifting
transforms use this to precompute weight preprocessing.
"""

from __future__ import annotations

from ember.ir import PrimExpr, Var as TirVar
from ember.tir.functor import collect

from ..expr import Function, MatchCast, PrimValue, SeqExpr, ShapeExpr
from ..expr_functor import ExprVisitor
from .symbolic_vars import definable_tir_vars_in_struct_info, tir_vars_in_struct_info
from .vars import free_vars

__all__ = ["computable_at_compile_time"]


class _TirVarsOfValue(ExprVisitor):
    """The TIR variables written in a Relax expression (shapes, prim values, struct info args)."""

    def __init__(self):
        self.found: list = []

    def _add(self, expr) -> None:
        if isinstance(expr, PrimExpr):
            self.found.extend(collect(expr, lambda n: isinstance(n, TirVar)))

    def visit_shape_expr_(self, op: ShapeExpr) -> None:
        for value in op.values:
            self._add(value)

    def visit_prim_value_(self, op: PrimValue) -> None:
        self._add(op.value)

    def visit_call_(self, op) -> None:
        super().visit_call_(op)
        for sinfo in op.sinfo_args or ():
            self.found.extend(tir_vars_in_struct_info(sinfo))


def _tir_vars_used(binding) -> list:
    finder = _TirVarsOfValue()
    finder.visit_expr(binding.value)
    used = finder.found + tir_vars_in_struct_info(binding.var.struct_info)
    if isinstance(binding, MatchCast):
        used += tir_vars_in_struct_info(binding.struct_info)
    return used


def computable_at_compile_time(func: Function) -> list:
    """The parameters after ``num_input`` and the bindings computable from them alone, in
    order of definition (none when the function has no ``num_input`` attribute)."""
    attrs = func.attrs or {}
    if "num_input" not in attrs:
        return []
    num_input = int(attrs["num_input"])
    known_vars: set[int] = set()
    known_tir: set[int] = set()
    result: list = []
    for param in func.params[num_input:]:
        known_vars.add(id(param))
        known_tir.update(id(v) for v in definable_tir_vars_in_struct_info(param.struct_info))
        result.append(param)
    body = func.body
    blocks = body.blocks if isinstance(body, SeqExpr) else ()
    for block in blocks:
        for binding in block.bindings:
            if not all(id(v) in known_vars for v in free_vars(binding.value)):
                continue
            defined_here = (
                {id(v) for v in definable_tir_vars_in_struct_info(binding.struct_info)}
                if isinstance(binding, MatchCast) else set()
            )
            if not all(id(v) in known_tir or id(v) in defined_here for v in _tir_vars_used(binding)):
                continue
            known_vars.add(id(binding.var))
            known_tir |= defined_here
            result.append(binding.var)
    return result

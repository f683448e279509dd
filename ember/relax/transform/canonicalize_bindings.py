"""CanonicalizeBindings: remove trivial bindings.

``y = x`` (a variable bound to another variable) and ``y = R.match_cast(x, sinfo)`` whose
``sinfo`` is exactly ``x``'s are dropped and uses of ``y`` become uses of ``x`` — unless
``y`` is visible outside a dataflow block while ``x`` is a DataflowVar (the binding is
then the block's output and stays).
"""

from __future__ import annotations

from ember.ir import structural_equal
from ember.transform import Pass

from ..expr import DataflowVar, Function, MatchCast, Var, VarBinding
from ..expr_functor import ExprMutator
from .pass_wrappers import relax_module_pass

__all__ = ["CanonicalizeBindings"]


class _Canonicalizer(ExprMutator):
    def _alias(self, binding, value) -> bool:
        if not isinstance(value, Var):
            return False
        if isinstance(value, DataflowVar) and not isinstance(binding.var, DataflowVar):
            return False
        self.set_var_remap(binding.var, value)
        return True

    def visit_var_binding_(self, binding: VarBinding) -> None:
        value = self.visit_expr(binding.value)
        if not self._alias(binding, value):
            super().visit_var_binding_(binding)

    def visit_match_cast_(self, binding: MatchCast) -> None:
        value = self.visit_expr(binding.value)
        same = isinstance(value, Var) and structural_equal(value.struct_info, binding.struct_info, map_free_vars=False)
        if not (same and self._alias(binding, value)):
            super().visit_match_cast_(binding)


def _run(func: Function, mod) -> Function:
    return _Canonicalizer(mod).visit_expr(func)


def CanonicalizeBindings() -> Pass:  # noqa: N802 - TVM's name
    return relax_module_pass(_run, "CanonicalizeBindings", 1)

"""EliminateCommonSubexpr: within one binding block, a pure value computed again
(structurally equal, on the very same variables) reuses the first result.

The repeated binding becomes ``lv1 = lv0`` and later uses read ``lv0`` (a block output
bound to a DataflowVar keeps its own name for uses after the block); CanonicalizeBindings
then removes the trivial binding.  With ``call_only=True`` only calls are merged.  Impure
calls are never merged.
"""

from __future__ import annotations

from ember.ir import structural_equal, structural_hash
from ember.transform import Pass

from ..analysis.vars import is_pure_call
from ..expr import Call, Constant, DataflowVar, Tuple, TupleGetItem, VarBinding
from ..expr_functor import ExprMutator
from .pass_wrappers import relax_module_pass

__all__ = ["EliminateCommonSubexpr"]


class _CSE(ExprMutator):
    def __init__(self, mod, call_only: bool):
        super().__init__(mod)
        self.mod = mod
        self.call_only = call_only
        self.seen: dict[int, list] = {}

    def _rebuild_block(self, block, dataflow: bool):
        outer, self.seen = self.seen, {}
        try:
            return super()._rebuild_block(block, dataflow)
        finally:
            self.seen = outer

    def _eligible(self, value) -> bool:
        if self.call_only:
            return isinstance(value, Call) and is_pure_call(value, self.mod)
        if isinstance(value, Call):
            return is_pure_call(value, self.mod)
        return isinstance(value, Tuple | TupleGetItem | Constant)

    def visit_var_binding_(self, binding: VarBinding) -> None:
        value = self.visit_expr(binding.value)
        if not self._eligible(value):
            return super().visit_var_binding_(binding)
        key = structural_hash(value)
        for prev_value, prev_var in self.seen.get(key, ()):
            if structural_equal(prev_value, value, map_free_vars=False):
                # as TVM: the repeat becomes ``lv1 = lv0`` (CanonicalizeBindings drops it) and
                # later uses read the first result, unless that would leak a DataflowVar
                self.builder_.emit_normalized(VarBinding(binding.var, prev_var))
                if not (isinstance(prev_var, DataflowVar) and not isinstance(binding.var, DataflowVar)):
                    self.set_var_remap(binding.var, prev_var)
                return None
        super().visit_var_binding_(binding)
        new_var = self.var_remap_.get(id(binding.var), binding.var)
        self.seen.setdefault(key, []).append((value, new_var))
        return None


def EliminateCommonSubexpr(call_only: bool = False) -> Pass:  # noqa: N802 - TVM's name
    return relax_module_pass(lambda f, mod: _CSE(mod, call_only).visit_expr(f), "EliminateCommonSubexpr", 1)



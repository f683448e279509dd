"""ToNonDataflow: turn every dataflow block into a plain binding block and every
DataflowVar into a Var (what the VM lowering expects)."""

from __future__ import annotations

from ember.transform import Pass

from ..expr import DataflowBlock, DataflowVar, Var
from ..expr_functor import ExprMutator
from .pass_wrappers import relax_module_pass

__all__ = ["ToNonDataflow"]


class _ToNonDataflow(ExprMutator):
    def visit_dataflow_block_(self, block: DataflowBlock):
        return self._rebuild_block(block, False)

    def visit_dataflow_var_def_(self, var: DataflowVar) -> Var:
        found = self.var_remap_.get(id(var))
        if found is None:
            found = Var(var.name_hint, var.struct_info)
            self.set_var_remap(var, found)
        return found


def ToNonDataflow() -> Pass:  # noqa: N802 - TVM's name
    return relax_module_pass(lambda f, mod: _ToNonDataflow(mod).visit_expr(f), "ToNonDataflow", 0)

"""The skeleton of the small graph rewrites that replace one binding's value by an equivalent
computation (ReorderPermuteDimsAfterConcat, ReorderTakeAfterMatmul, ExpandMatmulOfSum).

A ``BindingRewriter`` looks at each binding; where its ``rewrite`` returns a new value (after
emitting any helper bindings through ``self.builder_``), the binding's variable is bound to it
with the new value's struct info.  ``binding_rewrite_pass`` runs one over every Relax function
and removes the bindings the rewrite left unused (the operands it replaced).
"""

from __future__ import annotations

from ember.ir import Op
from ember.transform import Pass

from ..analysis.vars import get_var2val, remove_all_unused
from ..expr import Call, Expr, Function, Var, VarBinding
from ..expr_functor import ExprMutator
from .pass_wrappers import relax_module_pass

__all__ = ["BindingRewriter", "binding_rewrite_pass", "is_op_call"]


def is_op_call(expr, name: str) -> bool:
    """Whether ``expr`` calls the operator called ``name`` (e.g. "relax.matmul")."""
    return isinstance(expr, Call) and isinstance(expr.op, Op) and expr.op.name == name


class BindingRewriter(ExprMutator):
    """Subclasses define ``rewrite(value) -> Expr | None``; ``values`` maps each bound variable
    of the function to its value."""

    def __init__(self, mod, func: Function):
        super().__init__(mod)
        self.values = get_var2val(func)

    def value_of(self, expr):
        """The value ``expr`` is bound to, or None when it is not a bound variable."""
        return self.values.get(expr) if isinstance(expr, Var) else None

    def rewrite(self, value: Expr) -> Expr | None:
        raise NotImplementedError

    def visit_var_binding_(self, binding: VarBinding) -> None:
        new = self.rewrite(binding.value)
        if new is None:
            super().visit_var_binding_(binding)
            return
        new = self.builder_.normalize(new)
        var = self.with_struct_info(self.visit_var_def(binding.var), new.struct_info)
        if var is not binding.var:
            self.set_var_remap(binding.var, var)
        self.builder_.emit_normalized(VarBinding(var, new))


def binding_rewrite_pass(rewriter: type[BindingRewriter], name: str) -> Pass:
    """A module pass running ``rewriter`` over every Relax function."""

    def run(func: Function, mod) -> Function:
        new = rewriter(mod, func).visit_expr(func)
        return new if new is func else remove_all_unused(new)

    return relax_module_pass(run, name)

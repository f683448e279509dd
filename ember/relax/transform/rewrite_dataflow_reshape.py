"""RewriteDataflowReshape: a ``call_tir`` of a kernel that only reshapes becomes ``R.reshape``.

Inside dataflow blocks (the call's variable is a DataflowVar), a call of a PrimFunc with the
reshape pattern (``relax.analysis.has_reshape_pattern``: an order-preserving element copy)
on one tensor, whose output has the input's dtype and provably the same number of elements,
is replaced by ``R.reshape(x, out_shape)`` — which the VM runs as a view, with no copy.
(A slice also copies in order, but drops elements: the element count rules it out.)
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import GlobalVar, Op
from ember.tir import PrimFunc
from ember.transform import Pass

from ..analysis.reshape_pattern import has_reshape_pattern
from ..expr import Call, DataflowVar, Function, ShapeExpr, Tuple, VarBinding
from ..expr_functor import ExprMutator
from ..op import reshape
from ..struct_info import TensorStructInfo, shape_values
from .pass_wrappers import relax_module_pass

__all__ = ["RewriteDataflowReshape"]


def _volume(values):
    out = 1
    for v in values:
        out = out * v
    return out


class _Rewriter(ExprMutator):
    def __init__(self, mod):
        super().__init__(mod)
        self.mod = mod
        self.analyzer = Analyzer()

    def _reshape_of(self, value):
        if not (isinstance(value, Call) and isinstance(value.op, Op) and value.op.name == "relax.call_tir"):
            return None
        if len(value.args) != 2 or not isinstance(value.args[0], GlobalVar):
            return None
        func = self.mod[value.args[0].name_hint] if value.args[0].name_hint in self.mod else None
        args = value.args[1]
        if not isinstance(func, PrimFunc) or not isinstance(args, Tuple) or len(args.fields) != 1:
            return None
        x = args.fields[0]
        src, dst = x.struct_info_or_none(), value.struct_info_or_none()
        if not (isinstance(src, TensorStructInfo) and isinstance(dst, TensorStructInfo)) or src.dtype != dst.dtype:
            return None
        a, b = shape_values(src), shape_values(dst)
        if a is None or b is None or not self.analyzer.can_prove_equal(_volume(a), _volume(b)):
            return None
        if not has_reshape_pattern(func):
            return None
        return x, b

    def visit_var_binding_(self, binding: VarBinding) -> None:
        found = self._reshape_of(binding.value) if isinstance(binding.var, DataflowVar) else None
        if found is None:
            super().visit_var_binding_(binding)
            return
        x, shape = found
        value = self.builder_.normalize(reshape(self.visit_expr(x), ShapeExpr(list(shape))))
        var = self.with_struct_info(self.visit_var_def(binding.var), value.struct_info)
        if var is not binding.var:
            self.set_var_remap(binding.var, var)
        self.builder_.emit_normalized(VarBinding(var, value))


def _rewrite(func: Function, mod) -> Function:
    return _Rewriter(mod).visit_expr(func)


def RewriteDataflowReshape() -> Pass:  # noqa: N802 - TVM's name
    return relax_module_pass(_rewrite, "RewriteDataflowReshape")

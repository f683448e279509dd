"""ExpandMatmulOfSum: ``matmul(x, A + B)`` becomes ``matmul(x, A) + matmul(x, B)``.

Also through a transpose: ``matmul(x, permute_dims(A + B))`` becomes
``matmul(x, permute_dims(A)) + matmul(x, permute_dims(B))``.  Applied only when the sum
cannot be computed ahead of time — when A or B is a runtime input (a parameter before
``num_input``, or any parameter without that attribute); then CombineParallelMatmul can
merge the matmuls that share ``x``.  A and B must have the sum's shape.  The sum and
transpose, left unused, are removed.
"""

from __future__ import annotations

from ember.ir import structural_equal
from ember.transform import Pass

from ..analysis.vars import free_vars
from ..expr import Constant, Function, Var
from ..op import add, matmul, permute_dims
from .binding_rewrite import BindingRewriter, binding_rewrite_pass, is_op_call

__all__ = ["ExpandMatmulOfSum"]


class _Expander(BindingRewriter):
    def __init__(self, mod, func: Function):
        super().__init__(mod, func)
        num_input = (func.attrs or {}).get("num_input")
        self.runtime = set(func.params if num_input is None else func.params[: int(num_input)])
        self.weights = set(func.params) - self.runtime

    def _is_runtime(self, expr) -> bool:
        if isinstance(expr, Constant):
            return False
        if expr in self.runtime:
            return True
        value = self.value_of(expr)
        if value is None:  # a weight parameter is known ahead of time; anything else unknown is not
            return expr not in self.weights
        return any(self._is_runtime(v) for v in free_vars(value))

    def _sum(self, weight):
        """(A, B, permute attrs or None) when ``weight`` is A + B or a transpose of it."""
        value = self.value_of(weight)
        perm = None
        if is_op_call(value, "relax.permute_dims"):
            perm = value.attrs
            value = self.value_of(value.args[0])
        if not is_op_call(value, "relax.add"):
            return None
        a, b = value.args
        out = value.struct_info
        if not all(structural_equal(x.struct_info_or_none(), out, map_free_vars=False) for x in (a, b)):
            return None
        if not (self._is_runtime(a) or self._is_runtime(b)):
            return None
        return a, b, perm

    def rewrite(self, value):
        found = self._sum(value.args[1]) if is_op_call(value, "relax.matmul") else None
        if found is None:
            return None
        a, b, perm = found
        x = self.visit_expr(value.args[0])
        out_dtype = getattr(value.attrs, "out_dtype", None)
        parts = []
        for w, name in ((a, "lhs"), (b, "rhs")):
            w = self.visit_expr(w)
            if perm is not None:
                w = self.builder_.emit(permute_dims(w, perm.axes), f"{w.name_hint}_transpose"
                                       if isinstance(w, Var) else "")
            parts.append(self.builder_.emit(matmul(x, w, out_dtype=out_dtype), name))
        return add(*parts)


def ExpandMatmulOfSum() -> Pass:  # noqa: N802 - TVM's name
    return binding_rewrite_pass(_Expander, "ExpandMatmulOfSum")

"""ExpandMatmulOfSum: ``matmul(x, A + B)`` becomes ``matmul(x, A) + matmul(x, B)``.

Also through a transpose: ``matmul(x, permute_dims(A + B))`` becomes
``matmul(x, permute_dims(A)) + matmul(x, permute_dims(B))``.  Applied only when the sum
cannot be computed ahead of time — when A or B is a runtime input (a parameter before
``num_input``, or any parameter without that attribute); then CombineParallelMatmul can
merge the matmuls that share ``x``.  A and B must have the sum's shape.  The sum and
transpose, left unused, are removed.
"""

from __future__ import annotations

from ember.ir import Op, structural_equal
from ember.transform import Pass

from ..analysis.vars import free_vars, remove_all_unused
from ..expr import Call, Constant, Function, Var, VarBinding
from ..expr_functor import ExprMutator
from ..op import add, matmul, permute_dims
from .pass_wrappers import relax_module_pass

__all__ = ["ExpandMatmulOfSum"]


def _is(expr, name: str) -> bool:
    return isinstance(expr, Call) and isinstance(expr.op, Op) and expr.op.name == name


class _Expander(ExprMutator):
    def __init__(self, mod, runtime: set, weights: set, values: dict):
        super().__init__(mod)
        self.runtime, self.weights, self.values = runtime, weights, values

    def _value(self, expr):
        return self.values.get(expr) if isinstance(expr, Var) else None

    def _is_runtime(self, expr) -> bool:
        if isinstance(expr, Constant):
            return False
        if expr in self.runtime:
            return True
        value = self._value(expr)
        if value is None:  # a weight parameter is known ahead of time; anything else unknown is not
            return expr not in self.weights
        return any(self._is_runtime(v) for v in free_vars(value))

    def _sum(self, weight):
        """(A, B, permute attrs or None) when ``weight`` is A + B or a transpose of it."""
        value = self._value(weight)
        perm = None
        if _is(value, "relax.permute_dims"):
            perm = value.attrs
            value = self._value(value.args[0])
        if not _is(value, "relax.add"):
            return None
        a, b = value.args
        out = value.struct_info
        if not all(structural_equal(x.struct_info_or_none(), out, map_free_vars=False) for x in (a, b)):
            return None
        if not (self._is_runtime(a) or self._is_runtime(b)):
            return None
        return a, b, perm

    def visit_var_binding_(self, binding: VarBinding) -> None:
        value = binding.value
        found = self._sum(value.args[1]) if _is(value, "relax.matmul") else None
        if found is None:
            super().visit_var_binding_(binding)
            return
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
        out = self.builder_.normalize(add(*parts))
        var = self.with_struct_info(self.visit_var_def(binding.var), out.struct_info)
        if var is not binding.var:
            self.set_var_remap(binding.var, var)
        self.builder_.emit_normalized(VarBinding(var, out))


def _expand(func: Function, mod) -> Function:
    num_input = (func.attrs or {}).get("num_input")
    runtime = set(func.params if num_input is None else func.params[: int(num_input)])
    from ..analysis.vars import get_var2val

    weights = set(func.params) - runtime
    new = _Expander(mod, runtime, weights, get_var2val(func)).visit_expr(func)
    return new if new is func else remove_all_unused(new)


def ExpandMatmulOfSum() -> Pass:  # noqa: N802 - TVM's name
    return relax_module_pass(_expand, "ExpandMatmulOfSum")

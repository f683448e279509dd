"""ReorderTakeAfterMatmul: ``matmul(x, take(table, idx))`` becomes a matmul with the whole
table followed by a ``take`` of the result.

- ``take(table[K, N], idx, axis=1)`` (selected columns): ``take(matmul(x, table), idx,
  axis=-1)``.
- ``take(table[T, K, N], idx[B], axis=0)`` with ``x[B, ..., K]`` (one table entry per batch
  row): the table is laid out as one ``[K, T*N]`` weight, multiplied once, reshaped to
  ``[B, ..., T, N]``, the entries taken along the table axis, and each row's own entry kept
  with ``einsum("ijik->ijk")`` (for ``x[B, M, K]``).

The gathered weight, left unused, is removed.  Useful when the table is a model weight and
the gather would otherwise copy it at every call.
"""

from __future__ import annotations

from ember.transform import Pass

from ..expr import ShapeExpr, Var
from ..op import einsum, matmul, permute_dims, reshape, take
from ..struct_info import shape_values
from .binding_rewrite import BindingRewriter, binding_rewrite_pass, is_op_call

__all__ = ["ReorderTakeAfterMatmul"]


class _Reorder(BindingRewriter):
    def _match(self, value):
        if not is_op_call(value, "relax.matmul") or not isinstance(value.args[1], Var):
            return None
        weight = self.values.get(value.args[1])
        if not is_op_call(weight, "relax.take"):
            return None
        table, idx = weight.args
        x = value.args[0]
        t_shape = shape_values(table.struct_info_or_none())
        x_shape = shape_values(x.struct_info_or_none())
        i_shape = shape_values(idx.struct_info_or_none())
        if t_shape is None or x_shape is None or i_shape is None or len(i_shape) != 1:
            return None
        axis = weight.attrs.axis
        if axis is None:
            return None
        axis = int(axis) % len(t_shape)
        if len(t_shape) == 2 and axis == 1:
            return "columns", x, table, idx, value
        if len(t_shape) == 3 and axis == 0 and len(x_shape) == 3:
            return "batched", x, table, idx, value
        return None

    def rewrite(self, value):
        found = self._match(value)
        if found is None:
            return None
        kind, x, table, idx, call = found
        x, table, idx = self.visit_expr(x), self.visit_expr(table), self.visit_expr(idx)
        out_dtype = getattr(call.attrs, "out_dtype", None)
        if kind == "columns":
            out_table = self.builder_.emit(matmul(x, table, out_dtype=out_dtype), "out_table")
            ndim = out_table.struct_info.ndim
            return take(out_table, idx, axis=ndim - 1)
        t, k, n = shape_values(table.struct_info)
        xs = shape_values(x.struct_info)
        reordered = self.builder_.emit(permute_dims(table, [1, 0, 2]), "reordered_weight")
        fused = self.builder_.emit(reshape(reordered, ShapeExpr([k, t * n])), "fused_weight")
        fused_out = self.builder_.emit(matmul(x, fused, out_dtype=out_dtype), "fused_output")
        per_entry = self.builder_.emit(reshape(fused_out, ShapeExpr(list(xs[:-1]) + [t, n])), "reordered_output")
        tabular = self.builder_.emit(take(per_entry, idx, axis=2), "tabular_output")
        return einsum([tabular], "ijik->ijk")


def ReorderTakeAfterMatmul() -> Pass:  # noqa: N802 - TVM's name
    return binding_rewrite_pass(_Reorder, "ReorderTakeAfterMatmul")

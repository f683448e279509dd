"""ReorderPermuteDimsAfterConcat: ``concat([permute_dims(a), permute_dims(b)], axis=k)`` becomes
``permute_dims(concat([a, b], axis=perm[k]))``.

Every item must be a ``permute_dims`` with the same permutation (no ``axes`` means all axes
reversed).  One transpose of the joined weights then replaces one per weight, and the
concat of the untransposed weights can often be computed ahead of time.  Transposes left
unused are removed.
"""

from __future__ import annotations

from ember.transform import Pass

from ..expr import Tuple, Var
from ..op import concat, permute_dims
from .binding_rewrite import BindingRewriter, binding_rewrite_pass, is_op_call

__all__ = ["ReorderPermuteDimsAfterConcat"]


def _perm(call) -> tuple | None:
    ndim = getattr(call.args[0].struct_info_or_none(), "ndim", -1)
    axes = call.attrs.axes
    if axes is None:
        return tuple(range(ndim - 1, -1, -1)) if ndim >= 0 else None
    return tuple(int(a) % ndim for a in axes) if ndim > 0 else None


class _Reorder(BindingRewriter):
    def _match(self, value):
        if not is_op_call(value, "relax.concat"):
            return None
        items = value.args[0]
        if isinstance(items, Var):
            items = self.values.get(items)
        if not isinstance(items, Tuple) or not items.fields:
            return None
        perms, sources, first = [], [], None
        for f in items.fields:
            p = self.values.get(f) if isinstance(f, Var) else f
            if not is_op_call(p, "relax.permute_dims"):
                return None
            perms.append(_perm(p))
            sources.append(p.args[0])
            first = first or p
        if perms[0] is None or any(p != perms[0] for p in perms):
            return None
        ndim = len(perms[0])
        axis = value.attrs.axis
        if axis is None or ndim == 0:
            return None
        return sources, perms[0][int(axis) % ndim], first.attrs.axes

    def rewrite(self, value):
        found = self._match(value)
        if found is None:
            return None
        sources, axis, axes = found
        joined = self.builder_.emit(concat(Tuple([self.visit_expr(s) for s in sources]), axis=axis), "joined")
        return permute_dims(joined, axes)


def ReorderPermuteDimsAfterConcat() -> Pass:  # noqa: N802 - TVM's name
    return binding_rewrite_pass(_Reorder, "ReorderPermuteDimsAfterConcat")

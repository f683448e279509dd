"""ReorderPermuteDimsAfterConcat: ``concat([permute_dims(a), permute_dims(b)], axis=k)`` becomes
``permute_dims(concat([a, b], axis=perm[k]))``.

Every item must be a ``permute_dims`` with the same permutation (no ``axes`` means all axes
reversed).  One transpose of the joined weights then replaces one per weight, and the
concat of the untransposed weights can often be computed ahead of time.  Transposes left
unused are removed.
"""

from __future__ import annotations

from ember.ir import Op
from ember.transform import Pass

from ..analysis.vars import get_var2val, remove_all_unused
from ..expr import Call, Function, Tuple, Var, VarBinding
from ..expr_functor import ExprMutator
from ..op import concat, permute_dims
from .pass_wrappers import relax_module_pass

__all__ = ["ReorderPermuteDimsAfterConcat"]


def _is(expr, name: str) -> bool:
    return isinstance(expr, Call) and isinstance(expr.op, Op) and expr.op.name == name


def _perm(call) -> tuple | None:
    ndim = getattr(call.args[0].struct_info_or_none(), "ndim", -1)
    axes = call.attrs.axes
    if axes is None:
        return tuple(range(ndim - 1, -1, -1)) if ndim >= 0 else None
    return tuple(int(a) % ndim for a in axes) if ndim > 0 else None


class _Reorder(ExprMutator):
    def __init__(self, mod, values: dict):
        super().__init__(mod)
        self.values = values

    def _match(self, value):
        if not _is(value, "relax.concat"):
            return None
        items = value.args[0]
        if isinstance(items, Var):
            items = self.values.get(items)
        if not isinstance(items, Tuple) or not items.fields:
            return None
        perms, sources, first = [], [], None
        for f in items.fields:
            p = self.values.get(f) if isinstance(f, Var) else f
            if not _is(p, "relax.permute_dims"):
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

    def visit_var_binding_(self, binding: VarBinding) -> None:
        found = self._match(binding.value)
        if found is None:
            super().visit_var_binding_(binding)
            return
        sources, axis, axes = found
        joined = self.builder_.emit(concat(Tuple([self.visit_expr(s) for s in sources]), axis=axis), "joined")
        value = self.builder_.normalize(permute_dims(joined, axes))
        var = self.with_struct_info(self.visit_var_def(binding.var), value.struct_info)
        if var is not binding.var:
            self.set_var_remap(binding.var, var)
        self.builder_.emit_normalized(VarBinding(var, value))


def _rewrite(func: Function, mod) -> Function:
    new = _Reorder(mod, get_var2val(func)).visit_expr(func)
    return new if new is func else remove_all_unused(new)


def ReorderPermuteDimsAfterConcat() -> Pass:  # noqa: N802 - TVM's name
    return relax_module_pass(_rewrite, "ReorderPermuteDimsAfterConcat")

"""FuseTransposeMatmul: ``matmul(x, permute_dims(w))`` → one ``call_tir`` of ``NT_matmul``.

``relax.frontend.nn.Linear`` computes ``x @ w.T``; legalised as written, the transpose is a
kernel of its own that copies the whole (N, K) weight on every call.  This pass finds, within
one binding block, ``lv = permute_dims(w)`` (``w`` 2-D; ``axes`` ``None`` or ``[1, 0]``)
whose only use is as the second operand of ``matmul(x, lv)``, and replaces the pair with a
PrimFunc computing ``out[..., i, j] = sum_k x[..., i, k] * w[j, k]`` (accumulated in the
matmul's result dtype, symbolic dims kept).  The kernel carries ``op_pattern`` 4
(kOutEWiseFusable) so FuseOps fuses a bias add or activation into it.

Runs before LegalizeOps.  A transpose with other uses, or in another block than its
matmul, is left alone; each decision not taken is logged on
``logging.getLogger("ember.relax.fuse_transpose_matmul")``.
"""

from __future__ import annotations

import logging
from collections import Counter

from ember import te
from ember.ir import IRModule, Op
from ember.tir import op as tir_op
from ember.transform import Pass, module_pass

from ..expr import Call, Function, Var, VarBinding
from ..expr_functor import ExprMutator, ExprVisitor
from ..struct_info import TensorStructInfo, shape_values
from .legalize_ops.common import emit_te, out_dtype, out_shape
from .pass_wrappers import rewrite_functions

__all__ = ["FuseTransposeMatmul", "nt_matmul"]

_log = logging.getLogger("ember.relax.fuse_transpose_matmul")

OUT_EWISE_FUSABLE = 4  # AnnotateTIROpPattern.OpPatternKind.kOutEWiseFusable


def nt_matmul(x: te.Tensor, w: te.Tensor, shape, dtype: str) -> te.Tensor:
    """``out[..., i, j] = sum_k x[..., i, k] * w[j, k]`` (``x`` of rank ≥ 1, ``w`` (N, K))."""
    k = te.reduce_axis((0, w.shape[1]), name="k")

    def cast(v):
        return v if str(v.dtype) == dtype else tir_op.cast(v, dtype)

    def f(*idx):
        return te.sum(cast(x(*idx[:-1], k.var)) * cast(w(idx[-1], k.var)), axis=k)

    return te.compute(tuple(shape), f, name="NT_matmul")


def _is_op(value, name: str) -> bool:
    return isinstance(value, Call) and isinstance(value.op, Op) and value.op.name == name


def _tensor_ndim(expr) -> int | None:
    sinfo = expr.struct_info_or_none()
    if not isinstance(sinfo, TensorStructInfo) or sinfo.dtype is None or shape_values(sinfo) is None:
        return None
    return len(shape_values(sinfo))


def _transposed_2d(call: Call) -> object | None:
    """``w`` when ``call`` is ``permute_dims(w)`` swapping the two axes of a 2-D tensor."""
    (w,) = call.args
    if _tensor_ndim(w) != 2:
        return None
    axes = call.attrs.axes
    if axes is None or tuple(int(a) % 2 for a in axes) == (1, 0):
        return w
    return None


class _UseCounter(ExprVisitor):
    """How many times each variable is used (definitions not counted)."""

    def __init__(self):
        self.uses: Counter = Counter()

    def visit_var_(self, op: Var) -> None:
        self.uses[id(op)] += 1


def _fusable_pairs(block, uses: Counter) -> dict[int, object]:
    """id of each fusable transpose var in ``block`` → its input ``w``."""
    transposes = {id(b.var): (b.var, _transposed_2d(b.value)) for b in block.bindings
                  if isinstance(b, VarBinding) and _is_op(b.value, "relax.permute_dims")}
    fused: dict[int, object] = {}
    for b in block.bindings:
        if not (isinstance(b, VarBinding) and _is_op(b.value, "relax.matmul")):
            continue
        x, rhs = b.value.args
        if id(rhs) not in transposes:
            continue
        var, w = transposes[id(rhs)]
        why = None
        if w is None:
            why = "the transpose is not of a 2-D tensor with its two axes swapped"
        elif uses[id(var)] != 1:
            why = f"{var.name_hint} has {uses[id(var)]} uses"
        elif not _tensor_ndim(x) or _tensor_ndim(b.value) is None:
            why = "x or the result has unknown rank, shape or dtype"
        if why:
            _log.debug("FuseTransposeMatmul: %s = matmul(…, %s) not fused: %s", b.var.name_hint, var.name_hint, why)
            continue
        fused[id(var)] = w
    return fused


class _Fuser(ExprMutator):
    def __init__(self, mod: IRModule, uses: Counter):
        super().__init__(mod)
        self._uses = uses
        self._fused: dict[int, object] = {}
        self.changed = False

    def _rebuild_block(self, block, dataflow: bool):
        outer = self._fused
        self._fused = {**outer, **_fusable_pairs(block, self._uses)}
        try:
            return super()._rebuild_block(block, dataflow)
        finally:
            self._fused = outer

    def visit_var_binding_(self, binding: VarBinding) -> None:
        if id(binding.var) in self._fused:  # the transpose: its matmul reads w directly
            return None
        value = binding.value
        if _is_op(value, "relax.matmul") and id(value.args[1]) in self._fused:
            x, w = self.visit_expr(value.args[0]), self.visit_expr(self._fused[id(value.args[1])])
            shape, dtype = out_shape(value), out_dtype(value)
            new = emit_te(self.builder_, value, lambda a, b: nt_matmul(a, b, shape, dtype), x, w,
                          primfunc_name_hint="NT_matmul", primfunc_attrs={"op_pattern": OUT_EWISE_FUSABLE})
            self.changed = True
            var = self.visit_var_def(binding.var)
            self.builder_.emit_normalized(VarBinding(var, self.builder_.normalize(new)))
            return None
        return super().visit_var_binding_(binding)


def fuse_transpose_matmul(mod: IRModule) -> IRModule:
    """``mod`` with every fusable ``matmul(x, permute_dims(w))`` rewritten (see module docstring)."""
    funcs = [(gv, f) for gv, f in mod.functions.items() if isinstance(f, Function)]
    counter = _UseCounter()
    for _, f in funcs:
        counter.visit_expr(f)
    mutator = _Fuser(mod, counter.uses)
    return rewrite_functions(mod, mutator, funcs)


def FuseTransposeMatmul() -> Pass:  # noqa: N802 - TVM's name
    """TVM's ``relax.transform.FuseTransposeMatmul``: ``matmul(x, permute_dims(w))`` → ``NT_matmul``."""
    return module_pass(lambda mod, ctx: fuse_transpose_matmul(mod), opt_level=0, name="FuseTransposeMatmul")

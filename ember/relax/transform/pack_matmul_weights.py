"""PackMatmulWeights: matmuls of few rows read their constant weight pre-packed in column panels.

A matmul with few rows (a decode step, a small batch) does little arithmetic per weight
element, so reading the weight is what it costs.  ``dlight.cpu.Matmul`` walks a column panel of
``nr`` columns down all K rows: from a (K, N) weight that is ``nr`` floats per row with rows N
floats apart (12 KiB for GPT-2's 3072 columns: a new page every row, which the prefetchers do
not follow), and an (N, K) weight (``x @ w.T``) it first copies into panels on every call.
This pass packs the weight once, at compile time, into panels ``Wp`` of shape (N/nr, K, nr)
(zero columns pad the last one):

    out[..., i, j] = Σ_k x[..., i, k] · Wp[j // nr, k, j % nr]

so each column tile reads one contiguous stream.  ``nr`` is the panel width the rule picks for
the output's rows and columns (``dlight.cpu.matmul.panel_width``); the rule recognises the
layout and reads it as it is.  The kernel carries ``op_pattern`` kOutEWiseFusable, so a bias
or activation still fuses into it.

Matches ``matmul(x, W)`` with W a 2-D float32 constant (K, N), and ``matmul(x, permute_dims(W))``
with W a 2-D float32 constant (N, K) whose transpose has no other use (it then disappears), W
not used elsewhere (a tied embedding would be kept twice); x
float32 with static shape and fewer than ``MAX_ROWS`` rows (the product of its leading dims).
With more rows the rule packs panels per call itself, which many rows amortise.  Runs before
``FuseTransposeMatmul`` in the CPU pipeline; each decision not taken is logged on
``logging.getLogger("ember.relax.pack_matmul_weights")``.
"""

from __future__ import annotations

import logging
import math
from collections import Counter

import numpy as np

from ember import te
from ember.dlight.cpu.matmul import panel_width
from ember.ir import IRModule
from ember.tir import const as tir_const
from ember.tir import op as tir_op
from ember.transform import Pass, module_pass

from ..expr import Constant, Function, VarBinding, const
from ..expr_functor import ExprMutator
from ..struct_info import TensorStructInfo, shape_values
from .fuse_transpose_matmul import OUT_EWISE_FUSABLE, _is_op, _transposed_2d, _UseCounter
from .legalize_ops.common import emit_te
from .pass_wrappers import rewrite_functions

__all__ = ["PackMatmulWeights", "packed_matmul", "pack_panels"]

_log = logging.getLogger("ember.relax.pack_matmul_weights")

MAX_ROWS = 64  # from here on dlight's Matmul packs (K, N) panels per call itself (its `big`)


def pack_panels(weight_kn: np.ndarray, nr: int) -> np.ndarray:
    """(K, N) → (ceil(N / nr), K, nr), the last panel padded with zero columns."""
    k, n = weight_kn.shape
    panels = -(-n // nr)
    padded = np.zeros((k, panels * nr), weight_kn.dtype)
    padded[:, :n] = weight_kn
    return np.ascontiguousarray(padded.reshape(k, panels, nr).transpose(1, 0, 2))


def packed_matmul(x: te.Tensor, wp: te.Tensor, n: int) -> te.Tensor:
    """``out[..., i, j] = Σ_k x[..., i, k] · wp[j // nr, k, j % nr]`` (``wp`` (N/nr, K, nr))."""
    k = te.reduce_axis((0, wp.shape[1]), name="k")
    nr = tir_const(int(wp.shape[2]), "int64")

    def f(*idx):
        j = idx[-1]
        return te.sum(x(*idx[:-1], k.var) * wp(tir_op.floordiv(j, nr), k.var, tir_op.floormod(j, nr)), axis=k)

    return te.compute((*x.shape[:-1], tir_const(n, "int64")), f, name="matmul")


def _static_float32(expr) -> tuple[int, ...] | None:
    sinfo = expr.struct_info_or_none()
    if not isinstance(sinfo, TensorStructInfo) or sinfo.dtype != "float32":
        return None
    dims = shape_values(sinfo)
    if dims is None or not all(isinstance(d, int) or hasattr(d, "value") for d in dims):
        return None
    return tuple(int(getattr(d, "value", d)) for d in dims)


class _Uses(_UseCounter):
    """Uses of each variable and of each constant (a tied weight is one constant used twice)."""

    def visit_constant_(self, op: Constant) -> None:
        self.uses[id(op)] += 1


def _plan(value, transposes: dict, uses: Counter) -> tuple[Constant, object, int] | str:
    """For ``matmul(x, rhs)``: the weight constant to pack, the transpose var it replaces (None:
    the constant is (K, N) itself, else (N, K)) and x's rows; else why not."""
    x, rhs = value.args
    if isinstance(rhs, Constant) and len(_static_float32(rhs) or ()) == 2:
        constant, dropped = rhs, None
    elif id(rhs) in transposes and uses[id(rhs)] == 1:
        constant, dropped = transposes[id(rhs)], rhs
    else:
        return "the weight is not a 2-D float32 constant (or its transpose has other uses)"
    if uses[id(constant)] > 1:
        return "the weight is used elsewhere too (packing would keep two copies)"
    shape = _static_float32(x)
    if shape is None or len(shape) < 2:
        return "x is not float32 of static shape with rows"
    rows = math.prod(shape[:-1])
    if rows >= MAX_ROWS:
        return f"{rows} rows: the kernel packs per call itself"
    return constant, dropped, rows


class _Packer(ExprMutator):
    def __init__(self, mod: IRModule, uses: Counter, lanes: int):
        super().__init__(mod)
        self.uses, self.lanes = uses, lanes
        self.plans: dict[int, tuple] = {}  # matmul binding var id → _plan's (constant, transpose, rows)
        self.dropped: set[int] = set()  # transpose vars no longer needed
        self.changed = False

    def _rebuild_block(self, block, dataflow: bool):
        transposes = {}
        for b in block.bindings:
            if isinstance(b, VarBinding) and _is_op(b.value, "relax.permute_dims"):
                w = _transposed_2d(b.value)
                if isinstance(w, Constant) and _static_float32(w) is not None:
                    transposes[id(b.var)] = w
        for b in block.bindings:
            if isinstance(b, VarBinding) and _is_op(b.value, "relax.matmul"):
                plan = _plan(b.value, transposes, self.uses)
                if isinstance(plan, str):
                    _log.debug("PackMatmulWeights: %s kept: %s", b.var.name_hint, plan)
                    continue
                self.plans[id(b.var)] = plan
                if plan[1] is not None:
                    self.dropped.add(id(plan[1]))
        return super()._rebuild_block(block, dataflow)

    def visit_var_binding_(self, binding: VarBinding) -> None:
        if id(binding.var) in self.dropped:  # the transpose: its matmul reads the packed weight
            return None
        plan = self.plans.get(id(binding.var))
        if plan is None:
            return super().visit_var_binding_(binding)
        value, (constant, dropped, rows) = binding.value, plan
        weight_kn = constant.numpy() if dropped is None else constant.numpy().T
        n = weight_kn.shape[1]
        packed = const(pack_panels(weight_kn, panel_width(rows, n, self.lanes)))
        new = emit_te(self.builder_, value, lambda a, w: packed_matmul(a, w, n), self.visit_expr(value.args[0]),
                      packed, primfunc_name_hint="matmul", primfunc_attrs={"op_pattern": OUT_EWISE_FUSABLE})
        self.changed = True
        self.builder_.emit_normalized(VarBinding(self.visit_var_def(binding.var), self.builder_.normalize(new)))
        return None


def pack_matmul_weights(mod: IRModule, lanes: int) -> IRModule:
    """``mod`` with every matching matmul reading a packed weight (see the module docstring)."""
    funcs = [(gv, f) for gv, f in mod.functions.items() if isinstance(f, Function)]
    counter = _Uses()
    for _, f in funcs:
        counter.visit_expr(f)
    return rewrite_functions(mod, _Packer(mod, counter.uses, lanes), funcs)


def PackMatmulWeights(target=None) -> Pass:  # noqa: N802 - named like the other passes
    """Few-row matmuls against constant weights → the weight packed in column panels for
    ``target``'s vectors (default: the current target, else the host)."""

    def run(mod: IRModule, ctx) -> IRModule:
        from ember.target import Target

        t = target if target is not None else (Target.current() or Target("llvm"))
        t = Target(t) if isinstance(t, str) else t
        if t.kind.name not in ("llvm", "c"):  # the panels suit dlight's CPU rule only
            return mod
        return pack_matmul_weights(mod, max(4, t.vector_width_bits // 32))

    return module_pass(run, opt_level=0, name="PackMatmulWeights")

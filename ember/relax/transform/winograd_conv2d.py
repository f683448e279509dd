"""WinogradConv2D: 3×3 stride-1 convolutions on channel-blocked data computed with Winograd's
minimal filtering F(m×m, 3×3) (``ember.topi.nn.winograd``).

Matches ``relax.nn.conv2d`` calls that ``BlockedConvLayout`` left as ``NCHW{b}c`` data,
``OIHW{o}o`` constant weight, ``NCHW{o}c`` output: kernel 3×3, stride 1, dilation 1, groups 1,
float32, static shapes.  Each becomes three kernels:

* ``winograd_input`` (``call_tir``, opaque to fusion): ``V = Bᵀ d B`` per tile and channel,
  shape ``(α, α, tiles, C)``, padding folded in;
* ``relax.matmul(V, U)``: ``α²`` GEMMs against ``U = G g Gᵀ``, computed once here with numpy
  (a new constant, ``(α, α, C, K)``); LegalizeOps and ``dlight.cpu.Matmul`` take it from there;
* ``winograd_output`` (``op_pattern`` kOutEWiseFusable, as the convolution kernels): ``Aᵀ M A``
  written straight into the ``NCHW{o}c`` output, so FuseOps fuses bias, ReLU and residual add
  into it.

Which ``m`` (0 = keep the direct convolution) each layer gets is ``choose_tile(oh, ow, c, k)``,
a plain function a caller (or a tuner later) may replace: ``WinogradConv2D(choose=...)``.
The default rule is stated (and measured) in ``default_choose_tile``.  F(4,3) in float32 has a
larger rounding error than direct convolution (about 1e-5 relative on 64-512 channels against
1e-6; tests use 1e-4).

In the CPU default pipeline after ``BlockedConvLayout``, on by default (ResNet-50 runs ~0.93x
the time of the direct convolutions at 2 threads; RESULTS.md, round 8).  Off with PassContext
config ``relax.transform.winograd_conv2d=False`` or ``EMBER_WINOGRAD=0``.
"""

from __future__ import annotations

import logging
import os

from ember.ir import IRModule, Op
from ember.transform import Pass, module_pass

from ..expr import Call, Constant, VarBinding, const
from ..expr_functor import ExprMutator
from .blocked_conv_layout import static_float32_dims
from .pack_conv_weights import _padding
from .pass_wrappers import rewrite_functions

__all__ = ["WinogradConv2D", "default_choose_tile", "winograd_enabled"]

_log = logging.getLogger("ember.relax.winograd_conv2d")

OUT_EWISE_FUSABLE = 4  # OpPatternKind.kOutEWiseFusable
OPAQUE = 8  # OpPatternKind.kOpaque
_DEFAULT_ON = "1"


MIN_TILES = 49  # GEMM rows (tiles per image) below which the transforms do not pay


def default_choose_tile(oh: int, ow: int, channels: int, out_channels: int) -> int:
    """F(m, 3) for one layer, 0 for direct: the largest m in (4, 2) that still leaves
    ``MIN_TILES`` tiles.  Measured on ResNet-50's layers at 2 threads, weights cold
    (benchmarks/bench_winograd.py, RESULTS.md round 7 H1), time / direct: 56² 64 ch F(4) 0.77,
    F(2) 1.09; 28² 128 ch F(4) 0.73, F(2) 0.91; 14² 256 ch F(4) 1.00 (16 tiles), F(2) 0.81
    (49); 7² 512 ch F(2) 1.56 (16 tiles), F(4) 2.64: with few tiles the GEMMs are short and
    streaming the transformed weight (α²/9 × the direct one) dominates."""
    for m in (4, 2):
        if -(-oh // m) * -(-ow // m) >= MIN_TILES:
            return m
    return 0


def winograd_enabled() -> bool:
    """The switch: PassContext config ``relax.transform.winograd_conv2d``, default from
    ``EMBER_WINOGRAD`` ("0" off, else on; unset: ``_DEFAULT_ON``)."""
    from ember.transform import PassContext

    default = os.environ.get("EMBER_WINOGRAD", _DEFAULT_ON) != "0"
    return bool(PassContext.current().config.get("relax.transform.winograd_conv2d", default))


def _block_of(layout: str, prefix: str, suffix: str) -> int | None:
    if not (layout.startswith(prefix) and layout.endswith(suffix)):
        return None
    digits = layout[len(prefix):-len(suffix)]
    return int(digits) if digits.isdigit() else None


def _why_not(call: Call) -> str | None:
    """None when ``call`` (relax.nn.conv2d) can run as Winograd, else the reason."""
    a = call.attrs
    ib = _block_of(a.data_layout, "NCHW", "c")
    ob = _block_of(a.kernel_layout, "OIHW", "o")
    if ib is None or ob is None or a.out_layout != f"NCHW{ob}c":
        return f"layouts {a.data_layout}/{a.kernel_layout}/{a.out_layout} (want NCHW{{b}}c/OIHW{{o}}o/NCHW{{o}}c)"
    data, weight = call.args
    if not isinstance(weight, Constant):
        return "the weight is not a constant"
    dshape, wshape, oshape = static_float32_dims(data), static_float32_dims(weight), static_float32_dims(call)
    if dshape is None or wshape is None or oshape is None:
        return "not float32 with static shapes"
    if wshape[2:4] != (3, 3):
        return f"kernel {wshape[2]}x{wshape[3]}"
    if tuple(int(s) for s in a.strides) != (1, 1) or tuple(int(d) for d in a.dilation) != (1, 1):
        return "stride or dilation not 1"
    if int(a.groups) != 1:
        return f"groups={int(a.groups)}"
    if a.out_dtype not in (None, "", "float32"):
        return f"out_dtype {a.out_dtype}"
    return None


class _Rewriter(ExprMutator):
    def __init__(self, mod: IRModule, choose):
        super().__init__(mod)
        self.choose = choose
        self.changed = False

    def visit_var_binding_(self, binding: VarBinding) -> None:
        value = binding.value
        if not (isinstance(value, Call) and isinstance(value.op, Op) and value.op.name == "relax.nn.conv2d"):
            return super().visit_var_binding_(binding)
        why = _why_not(value)
        m = 0
        if why is None:
            dshape, oshape = static_float32_dims(value.args[0]), static_float32_dims(value)
            m = self.choose(oshape[2], oshape[3], dshape[1] * dshape[4], oshape[1] * oshape[4])
        if why or not m:
            _log.debug("WinogradConv2D: %s kept: %s", binding.var.name_hint, why or "direct by choice")
            return super().visit_var_binding_(binding)
        new = self._rewrite(value, m)
        self.changed = True
        self.builder_.emit_normalized(VarBinding(self.visit_var_def(binding.var), new))
        return None

    def _rewrite(self, call: Call, m: int):
        from ember.topi.nn.winograd import transform_weight, winograd_input_transform, winograd_output_transform

        from ..op.linear_algebra import matmul

        bb = self.builder_
        w5 = call.args[1].numpy()  # (K/o, C, 3, 3, o)
        kb, c, _, _, ob = w5.shape
        weight = w5.transpose(0, 4, 1, 2, 3).reshape(kb * ob, c, 3, 3)
        padding, oshape = _padding(call.attrs), static_float32_dims(call)
        data = self.visit_expr(call.args[0])
        v = bb.emit(bb.call_te(lambda d: winograd_input_transform(d, m, padding), data,
                               primfunc_name_hint="winograd_input", primfunc_attrs={"op_pattern": OPAQUE}))
        prod = bb.emit(matmul(v, const(transform_weight(weight, m))))
        return bb.normalize(bb.call_te(lambda p: winograd_output_transform(p, m, oshape, ob), prod,
                                       primfunc_name_hint="winograd_output",
                                       primfunc_attrs={"op_pattern": OUT_EWISE_FUSABLE}))


def WinogradConv2D(choose=None, force: bool = False) -> Pass:  # noqa: N802 - named like the other passes
    """3×3 stride-1 blocked convolutions → Winograd transforms and batched GEMMs.  ``choose``:
    ``(oh, ow, c, k) -> m`` (0 = direct), default ``default_choose_tile``; ``force``: run
    whatever the switch says."""

    def run(mod: IRModule, ctx) -> IRModule:
        if not (force or winograd_enabled()):
            return mod
        return rewrite_functions(mod, _Rewriter(mod, choose or default_choose_tile))

    return module_pass(run, opt_level=0, name="WinogradConv2D")

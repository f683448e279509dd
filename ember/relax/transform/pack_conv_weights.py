"""PackConvWeights: 2-D convolutions with constant weights read them pre-packed.

A CPU convolution vectorised over output channels wants, for each (input channel, ky, kx),
a contiguous run of output channels; OIHW weights keep those ``C·KH·KW`` apart.  This pass
finds ``relax.nn.conv2d`` calls (NCHW data, OIHW kernel, NCHW output, ``groups`` 1 or
depthwise — one output channel per input channel —, float dtypes, static shapes) whose
weight is a ``relax.Constant`` and whose output channels are a multiple of a block ``B``
(16, else 8; other counts of at least 32 are padded with zero-weight channels, the
extra outputs sliced off after), packs the weight once, at compile time, into
``(O/B, C, KH, KW, B)`` (``wp[f // B, c, ky, kx, f % B] = w[f, c, ky, kx]``), and replaces
the call with a ``call_tir`` of ``conv2d_nchw_packed``:

    out[n, f, y, x] = sum_{c, ky, kx} pad(data)[n, c, y·sh + ky·dh, x·sw + kx·dw]
                                      · wp[f // B, c, ky, kx, f % B]

The result keeps the NCHW layout, so every consumer (batch-norm arithmetic, residual add,
ReLU) is untouched and FuseOps fuses it into the kernel as before (the PrimFunc carries
``op_pattern`` 4, kOutEWiseFusable).  ``ember.dlight.cpu.Conv2DPacked`` schedules it;
depthwise convolutions become ``depthwise_conv2d_nchw_packed`` (input channel ``f`` for output
channel ``f``), which ``ember.dlight.cpu.DepthwiseConv2DPacked`` schedules.

Runs before LegalizeOps.  Convolutions left alone are logged on
``logging.getLogger("ember.relax.pack_conv_weights")``.
"""

from __future__ import annotations

import logging

import numpy as np

from ember import te
from ember.ir import IRModule, Op
from ember.tir import op as tir_op
from ember.transform import Pass, module_pass

from ..expr import Call, Constant, VarBinding, const
from ..expr_functor import ExprMutator
from ..op.manipulate import strided_slice
from ..struct_info import TensorStructInfo, shape_values
from .legalize_ops.common import emit_te, out_dtype
from .pass_wrappers import rewrite_functions

__all__ = ["PackConvWeights", "conv2d_nchw_packed", "pack_oihw"]

_log = logging.getLogger("ember.relax.pack_conv_weights")

OUT_EWISE_FUSABLE = 4  # AnnotateTIROpPattern.OpPatternKind.kOutEWiseFusable
_FLOATS = ("float32", "float64")


def pack_oihw(weight: np.ndarray, block: int) -> np.ndarray:
    """``(O, C, KH, KW)`` → ``(O/block, C, KH, KW, block)`` (``O`` a multiple of ``block``)."""
    o, c, kh, kw = weight.shape
    if o % block:
        raise ValueError(f"pack_oihw: {o} output channels are not a multiple of block={block}")
    return np.ascontiguousarray(weight.reshape(o // block, block, c, kh, kw).transpose(0, 2, 3, 4, 1))


def conv2d_nchw_packed(data: te.Tensor, packed: te.Tensor, strides, padding, dilation, dtype: str,
                       depthwise: bool = False) -> te.Tensor:
    """NCHW convolution reading a ``pack_oihw`` weight (``padding`` = top, left, bottom, right).
    ``depthwise``: one input channel per output channel (groups = channels, weight
    ``(C/B, 1, KH, KW, B)``); output channel ``f`` reads input channel ``f``."""
    from ember.topi.nn.pad import pad

    from ember.tir import const as tir_const

    n, _, h, w = (int(d) for d in data.shape)
    blocks, c, kh, kw, block = (int(d) for d in packed.shape)
    sh, sw = strides
    dh, dw = dilation
    top, left, bottom, right = padding
    oh = (h + top + bottom - (kh - 1) * dh - 1) // sh + 1
    ow = (w + left + right - (kw - 1) * dw - 1) // sw + 1
    padded = pad(data, [0, 0, top, left], [0, 0, bottom, right], name="pad_temp") if any(padding) else data

    def i64(v):
        return tir_const(v, "int64")

    rc = te.reduce_axis((i64(0), i64(c)), name="rc")
    ry = te.reduce_axis((i64(0), i64(kh)), name="ry")
    rx = te.reduce_axis((i64(0), i64(kw)), name="rx")

    def cast(v):
        return v if str(v.dtype) == dtype else tir_op.cast(v, dtype)

    def scaled(v, k):
        return v if k == 1 else v * i64(k)

    def f(nn, ff, yy, xx):
        row, col = scaled(yy, sh) + scaled(ry.var, dh), scaled(xx, sw) + scaled(rx.var, dw)
        src = padded(nn, ff if depthwise else rc.var, row, col)
        wgt = packed(tir_op.floordiv(ff, i64(block)), rc.var, ry.var, rx.var, tir_op.floormod(ff, i64(block)))
        return te.sum(cast(src) * cast(wgt), axis=[rc, ry, rx])

    name = "depthwise_conv2d_nchw_packed" if depthwise else "conv2d_nchw_packed"
    return te.compute(tuple(i64(v) for v in (n, blocks * block, oh, ow)), f, name=name)


def _static_shape(expr) -> tuple | None:
    sinfo = expr.struct_info_or_none()
    if not isinstance(sinfo, TensorStructInfo) or sinfo.dtype is None:
        return None
    dims = shape_values(sinfo)
    if dims is None or not all(hasattr(d, "value") for d in dims):
        return None
    return tuple(int(d.value) for d in dims)


def _why_not(call: Call) -> str | None:
    """None when ``call`` (a relax.nn.conv2d) can be packed, else the reason."""
    a = call.attrs
    data, weight = call.args
    if (a.data_layout, a.kernel_layout, a.out_layout) != ("NCHW", "OIHW", "NCHW"):
        return f"layouts {a.data_layout}/{a.kernel_layout}/{a.out_layout} (want NCHW/OIHW/NCHW)"
    if not isinstance(weight, Constant):
        return "the weight is not a constant"
    shape = _static_shape(data)
    if shape is None or _static_shape(weight) is None or _static_shape(call) is None:
        return "a shape is not static"
    dtypes = sorted({str(data.struct_info.dtype), str(weight.struct_info.dtype), out_dtype(call)})
    if len(dtypes) != 1 or dtypes[0] not in _FLOATS:
        return f"dtypes {dtypes}"
    groups, wshape = int(a.groups), _static_shape(weight)
    if groups != 1 and not (groups == shape[1] == wshape[0] and wshape[1] == 1):
        return f"groups={groups} (only 1, or depthwise with one output channel per input channel)"
    if _block(wshape[0]) is None and (groups != 1 or wshape[0] < _PAD_MIN):
        return f"{wshape[0]} output channels (want a multiple of 8, or at least {_PAD_MIN} to pad)"
    return None


_PAD_MIN = 32  # fewer output channels, not a multiple of 8: not worth computing padded ones


def _block(out_channels: int) -> int | None:
    return next((b for b in (16, 8) if out_channels % b == 0), None)


def _padded_channels(out_channels: int) -> int:
    """Output channels computed for a count that is not a multiple of 8: the next multiple
    of 64 (whole register tiles of 4 vectors) when that wastes at most 1/32, else of 16."""
    by64 = -(-out_channels // 64) * 64
    return by64 if (by64 - out_channels) * 32 <= out_channels else -(-out_channels // 16) * 16


def _padding(a) -> tuple:
    p = [int(v) for v in a.padding]
    if len(p) == 1:
        p = p * 4
    elif len(p) == 2:
        p = [p[0], p[1], p[0], p[1]]
    return tuple(p)


class _Packer(ExprMutator):
    def __init__(self, mod: IRModule):
        super().__init__(mod)
        self.changed = False

    def visit_var_binding_(self, binding: VarBinding) -> None:
        value = binding.value
        if not (isinstance(value, Call) and isinstance(value.op, Op) and value.op.name == "relax.nn.conv2d"):
            return super().visit_var_binding_(binding)
        why = _why_not(value)
        if why:
            _log.debug("PackConvWeights: %s kept: %s", binding.var.name_hint, why)
            return super().visit_var_binding_(binding)
        a = value.attrs
        weight = value.args[1].numpy()
        out_channels = weight.shape[0]
        block = _block(out_channels)
        if block is None:  # computed for zero-weight extra channels, sliced off after
            block = 16
            extra = _padded_channels(out_channels) - out_channels
            weight = np.concatenate([weight, np.zeros((extra, *weight.shape[1:]), weight.dtype)])
        packed = const(pack_oihw(weight, block))
        strides = tuple(int(s) for s in a.strides)
        dilation = tuple(int(d) for d in a.dilation)
        padding, dtype, depthwise = _padding(a), out_dtype(value), int(a.groups) > 1
        data = self.visit_expr(value.args[0])
        conv = lambda x, w: conv2d_nchw_packed(x, w, strides, padding, dilation, dtype, depthwise)  # noqa: E731
        name = "depthwise_conv2d" if depthwise else "conv2d"
        if weight.shape[0] == out_channels:
            new = emit_te(self.builder_, value, conv, data, packed, primfunc_name_hint=name,
                          primfunc_attrs={"op_pattern": OUT_EWISE_FUSABLE})
        else:
            wide = self.builder_.emit(self.builder_.call_te(conv, data, packed, primfunc_name_hint=name,
                                                            primfunc_attrs={"op_pattern": OUT_EWISE_FUSABLE}))
            new = strided_slice(wide, axes=[1], begin=[0], end=[out_channels])
        self.changed = True
        var = self.visit_var_def(binding.var)
        self.builder_.emit_normalized(VarBinding(var, self.builder_.normalize(new)))
        return None


def pack_conv_weights(mod: IRModule) -> IRModule:
    """``mod`` with every packable convolution rewritten (see module docstring)."""
    mutator = _Packer(mod)
    return rewrite_functions(mod, mutator)


def PackConvWeights() -> Pass:  # noqa: N802 - named like TVM's passes
    """``relax.nn.conv2d`` with a constant OIHW weight → ``conv2d_nchw_packed`` on a pre-packed weight."""
    return module_pass(lambda mod, ctx: pack_conv_weights(mod), opt_level=0, name="PackConvWeights")

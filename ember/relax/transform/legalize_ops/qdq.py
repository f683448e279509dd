"""Legalisers of ``relax.quantize`` / ``relax.dequantize``: one elementwise kernel each,
written as TVM's (block ``quantized`` / ``dequantized``).

A scale or zero point that is a 0-d constant is folded into the kernel (a constant scale
``s`` of quantize becomes a multiplication by ``1 / s``, as TVM writes it); a 1-D one is
read at the data's index along ``axis``.  Dequantize computes in float32 and, for a
narrower float result, clamps to its finite range before the cast.
"""

from __future__ import annotations

import numpy as np

from ember import te
from ember.ir import DataType, const
from ember.tir import op as tir_op

from ...expr import Constant
from .common import Legalizer, emit_te

__all__ = ["TABLE"]


def _scalar_constant(arg):
    """The Python value of a 0-d constant, else None."""
    if isinstance(arg, Constant):
        value = arg.numpy()
        if value.ndim == 0:
            return value.item()
    return None


def _per_axis(param, axis: int):
    """``param`` read at the data index along ``axis`` (a 0-d tensor is read at ``()``)."""
    if len(param.shape) == 0:
        return lambda idx: param[()]
    return lambda idx: param[idx[axis]]


def _int_range(dtype: str) -> tuple[float, float]:
    info = np.iinfo(dtype)
    return float(info.min), float(info.max)


def _float_range(dtype: str) -> tuple[float, float]:
    info = np.finfo(dtype)
    return float(-info.max), float(info.max)


def _quantize(bb, call) -> object:
    data = call.args[0]
    axis = call.attrs.axis % max(data.struct_info.ndim, 1)
    out_dtype = str(call.attrs.out_dtype)
    in_dtype = str(data.struct_info.dtype)
    s_value, z_value = _scalar_constant(call.args[1]), _scalar_constant(call.args[2])
    lo, hi = _int_range(out_dtype) if not DataType(out_dtype).is_float else _float_range(out_dtype)

    def kernel(a, *params):
        params = list(params)
        scale = params.pop(0) if s_value is None else None
        zero = params.pop(0) if z_value is None else None

        def value(*idx):
            x = a(*idx)
            if scale is None:
                scaled = x * const(1.0 / s_value, in_dtype)
            else:
                scaled = x / _per_axis(scale, axis)(idx)
            shift = const(float(z_value), in_dtype) if zero is None else tir_op.cast(_per_axis(zero, axis)(idx), in_dtype)
            v = tir_op.round(scaled) + shift
            v = tir_op.max(tir_op.min(v, const(hi, in_dtype)), const(lo, in_dtype))
            return tir_op.cast(v, out_dtype)

        return te.compute(a.shape, value, name="quantized")

    args = [data] + [a for a, c in zip(call.args[1:], (s_value, z_value)) if c is None]
    return emit_te(bb, call, kernel, *args)


def _dequantize(bb, call) -> object:
    data = call.args[0]
    axis = call.attrs.axis % max(data.struct_info.ndim, 1)
    out_dtype = str(call.attrs.out_dtype)
    s_value, z_value = _scalar_constant(call.args[1]), _scalar_constant(call.args[2])

    def kernel(a, *params):
        params = list(params)
        scale = params.pop(0) if s_value is None else None
        zero = params.pop(0) if z_value is None else None

        def value(*idx):
            shift = const(int(z_value), "int32") if zero is None else tir_op.cast(_per_axis(zero, axis)(idx), "int32")
            diff = tir_op.cast(tir_op.cast(a(*idx), "int32") - shift, "float32")
            if scale is None:
                v = diff * const(float(s_value), "float32")
            else:
                v = diff * tir_op.cast(_per_axis(scale, axis)(idx), "float32")
            if out_dtype == "float32":
                return v
            lo, hi = _float_range(out_dtype)
            v = tir_op.max(tir_op.min(v, const(hi, "float32")), const(lo, "float32"))
            return tir_op.cast(v, out_dtype)

        return te.compute(a.shape, value, name="dequantized")

    args = [data] + [a for a, c in zip(call.args[1:], (s_value, z_value)) if c is None]
    return emit_te(bb, call, kernel, *args)


TABLE: dict[str, Legalizer] = {
    "relax.quantize": _quantize,
    "relax.dequantize": _dequantize,
}

"""Quantization operators: ``quantize`` (float → integer or float8, per-axis scale and
zero point) and ``dequantize`` (back to float), as TVM's ``relax.quantize`` /
``relax.dequantize``.

``quantize(x, s, z, axis, out_dtype)`` is ``clip(round(x / s) + z, out_dtype's range)``
cast to ``out_dtype``; ``dequantize(x, s, z, axis, out_dtype)`` is ``(x - z) * s``.  The
scale and zero point are scalars (0-d) or 1-D along ``axis`` of the data.
"""

from __future__ import annotations

from ember.ir import DataType, node

from ..expr import Call
from ..struct_info import TensorStructInfo, shape_values
from .attrs import Attrs
from .base import make_call, register, tensor_arg

__all__ = ["quantize", "dequantize"]


@node
class QuantizeAttrs(Attrs):
    axis: int
    out_dtype: DataType


def _check_param(call: Call, i: int, what: str, data: TensorStructInfo, axis: int) -> None:
    param = tensor_arg(call, i)
    if param.ndim not in (-1, 0, 1):
        raise ValueError(f"{call.op.name}: the {what} must be a scalar or 1-D, got {param.ndim} dims")
    if param.ndim == 1 and data.ndim >= 0:
        dims, pdims = shape_values(data), shape_values(param)
        if dims is not None and pdims is not None:
            from .._arith import as_int

            n, m = as_int(dims[axis]), as_int(pdims[0])
            if n is not None and m is not None and n != m and m != 1:
                raise ValueError(f"{call.op.name}: the {what} has {m} values but axis {axis} of the "
                                 f"data has {n}")


def _infer(float_input: bool):
    def infer(call: Call, ctx) -> TensorStructInfo:
        data = tensor_arg(call, 0)
        name = call.op.name
        if float_input and data.dtype is not None and not data.dtype.is_float:
            raise TypeError(f"{name}: the data must be float, got {data.dtype}")
        scale = tensor_arg(call, 1)
        if scale.dtype is not None and not scale.dtype.is_float:
            raise TypeError(f"{name}: the scale must be float, got {scale.dtype}")
        axis = call.attrs.axis
        if data.ndim >= 0:
            if not -data.ndim <= axis < max(data.ndim, 1):
                raise ValueError(f"{name}: axis {axis} is out of range for {data.ndim} dims")
            axis %= max(data.ndim, 1)
        _check_param(call, 1, "scale", data, axis)
        _check_param(call, 2, "zero point", data, axis)
        return TensorStructInfo(data.shape, call.attrs.out_dtype, data.vdevice, data.ndim)

    return infer


register("quantize", _infer(True), arg_names=("data", "scale", "zero_point"))
register("dequantize", _infer(False), arg_names=("data", "scale", "zero_point"))


def quantize(data, scale, zero_point, axis: int = -1, out_dtype: str = "int8") -> Call:
    """``clip(round(data / scale) + zero_point)`` in ``out_dtype`` (scale/zero point per ``axis``)."""
    return make_call("quantize", [data, scale, zero_point], QuantizeAttrs(int(axis), DataType(out_dtype)))


def dequantize(data, scale, zero_point, axis: int = -1, out_dtype: str = "float32") -> Call:
    """``(data - zero_point) * scale`` in ``out_dtype`` (scale/zero point per ``axis``)."""
    return make_call("dequantize", [data, scale, zero_point], QuantizeAttrs(int(axis), DataType(out_dtype)))

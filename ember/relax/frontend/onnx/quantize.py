"""ONNX quantisation operators: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv.

Everything is composed from Relax elementwise ops (divide, round half-to-even, clip,
astype) around an int32 matmul/conv, following the ONNX reference arithmetic:
quantise ``saturate(rint(x / scale) + zero_point)``, dequantise ``(x - zero_point) * scale``
computed in float32.  Scales and zero points may be per tensor, per axis or blocked
(``block_size``); they are reshaped (or repeated) to broadcast against the data.  The
integer matmul/conv reuse the importer's own MatMul and Conv converters on int32 inputs.

Quantised types: int8, uint8, int16, uint16 (and int32 inputs to DequantizeLinear), and
the low-bit types held as storage (``lowbit``): int4/uint4/int2/uint2 (saturated to their
range), float8 (``saturate``; the zero point is ignored, as in ONNX's reference) and float4.
"""

from __future__ import annotations

import numpy as np

from ember import relax
from ember.relax import op as R

from .common import ONNXImportError, OpNotImplemented, dtype_of, norm_axis, static_shape
from .lowbit import LOWBIT, decode, encode, is_lowbit
from .registry import converter, find_converter

_RANGES = {"uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767)}
_ONNX_TO_DTYPE = {2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32"}
_UNSUPPORTED = {27: "float6e2m3", 28: "float6e3m2"}  # no storage type for these yet


class _Folding:
    """A ``ctx`` stand-in whose ``emit`` evaluates calls on constants at import (numpy
    reference semantics), so constant scales and zero points reach the kernels as constants
    instead of 0-d runtime ops fused into them."""

    def __init__(self, ctx):
        self._ctx = ctx

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    def emit(self, expr, name_hint: str = ""):
        from ember.relax.expr import Call

        if isinstance(expr, Call) and hasattr(expr.op, "name") and expr.args:
            args = [_import_value(a) for a in expr.args]
            if all(a is not None for a in args) and any(isinstance(a, np.ndarray) for a in args):
                folded = self._evaluate(expr, args)
                if folded is not None:
                    return folded
        return self._ctx.emit(expr, name_hint)

    def _evaluate(self, expr, args):
        from ember.relax.reference.ops import evaluate_op

        try:
            value = evaluate_op(expr.op.name, args, expr.attrs)
        except NotImplementedError:
            return None
        if not isinstance(value, np.ndarray | np.generic):
            return None
        sinfo = self._ctx.bb.normalize(expr).struct_info
        return relax.const(np.asarray(value).astype(str(sinfo.dtype)))


def _import_value(arg):
    """The numpy/Python value of a constant operand, or None."""
    from ember.ir import IntImm
    from ember.relax.expr import Constant, ShapeExpr

    if isinstance(arg, Constant):
        return arg.numpy()
    if isinstance(arg, ShapeExpr) and all(isinstance(v, IntImm) for v in arg.values):
        return tuple(int(v.value) for v in arg.values)
    return None


def _folding(fn):
    """Run converter ``fn`` with constant folding of its helper ops (see ``_Folding``)."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx, node, inputs, attrs):
        return fn(_Folding(ctx), node, inputs, attrs)

    return wrapper


def _dtype_or_refuse(dtype: str | None, what: str) -> str:
    if dtype is None:
        raise ONNXImportError(f"{what}: the element type must be known at import")
    if dtype not in _RANGES and dtype != "int32":
        raise OpNotImplemented(f"{what}: quantised type {dtype} is not supported (int8, uint8, int16, uint16)")
    return dtype


def _const(value, dtype: str):
    return relax.const(np.asarray(value, dtype=dtype))


def _broadcastable(ctx, value, x, axis: int, block_size: int, what: str):
    """``value`` (a scale or zero point) reshaped/repeated to broadcast against ``x``."""
    vshape = static_shape(value)
    xshape = static_shape(x)
    if vshape is None:
        raise ONNXImportError(f"{what}: the shape of the scale/zero point must be known at import")
    size = int(np.prod(vshape)) if vshape else 1
    if size == 1 and len(vshape) <= 1:
        return ctx.emit(R.reshape(value, [])) if vshape else value
    if xshape is None:
        raise ONNXImportError(f"{what}: per-axis or blocked quantisation needs the input's shape at import")
    axis = norm_axis(axis, len(xshape), f"{what} axis")
    if not block_size:
        if len(vshape) != 1 or vshape[0] != xshape[axis]:
            raise ONNXImportError(f"{what}: a per-axis scale must be 1-D of length {xshape[axis]} "
                                  f"(input dim {axis}), got shape {list(vshape)}")
        dims = [1] * len(xshape)
        dims[axis] = vshape[0]
        return ctx.emit(R.reshape(value, dims))
    want = list(xshape)
    want[axis] = -(-xshape[axis] // block_size)
    if list(vshape) != want:
        raise ONNXImportError(f"{what}: a blocked scale for input {list(xshape)} with block_size={block_size} "
                              f"on axis {axis} must have shape {want}, got {list(vshape)}")
    out = ctx.emit(R.repeat(value, block_size, axis))
    if want[axis] * block_size != xshape[axis]:
        out = ctx.emit(R.strided_slice(out, [axis], [0], [xshape[axis]]))
    return out


def quantize(ctx, x, scale, zero_point, out_dtype: str, axis: int = 1, block_size: int = 0, what="QuantizeLinear",
             bounds: tuple[int, int] | None = None):
    """``saturate(rint(x / scale) + zero_point)`` as ``out_dtype`` (int8/uint8/int16/uint16),
    clipped to ``bounds`` (default: the dtype's range)."""
    lo, hi = bounds or _RANGES[out_dtype]
    xd = dtype_of(x)
    scale = _broadcastable(ctx, scale, x, axis, block_size, what)
    if dtype_of(scale) != xd:
        scale = ctx.emit(R.astype(scale, xd))
    q = ctx.emit(R.round(ctx.emit(R.divide(x, scale))))
    if xd != "float32":
        q = ctx.emit(R.astype(q, "float32"))
    if zero_point is not None:
        zp = _broadcastable(ctx, zero_point, x, axis, block_size, what)
        q = ctx.emit(R.add(q, ctx.emit(R.astype(zp, "float32"))))
    q = ctx.emit(R.clip(q, lo, hi))
    return ctx.emit(R.astype(q, out_dtype))


def dequantize(ctx, x, scale, zero_point, axis: int = 1, block_size: int = 0, out_dtype=None,
               what="DequantizeLinear"):
    """``(x - zero_point) * scale`` computed in float32, returned as ``out_dtype`` (default: scale's)."""
    dx = ctx.emit(R.astype(x, "float32"))
    if zero_point is not None:
        zp = _broadcastable(ctx, zero_point, x, axis, block_size, what)
        dx = ctx.emit(R.subtract(dx, ctx.emit(R.astype(zp, "float32"))))
    s = _broadcastable(ctx, scale, x, axis, block_size, what)
    if dtype_of(s) != "float32":
        s = ctx.emit(R.astype(s, "float32"))
    y = ctx.emit(R.multiply(dx, s))
    out_dtype = out_dtype or dtype_of(scale)
    return y if out_dtype == "float32" else ctx.emit(R.astype(y, out_dtype))


def _quant_dtype(inputs, attrs, default="uint8") -> str:
    zp = inputs[2] if len(inputs) > 2 else None
    if zp is not None:
        return _dtype_or_refuse(dtype_of(zp), "QuantizeLinear")
    code = int(attrs.get("output_dtype", 0))
    if code in _UNSUPPORTED:
        raise OpNotImplemented(f"QuantizeLinear: output_dtype {_UNSUPPORTED[code]} is not supported "
                               "(int8, uint8, int16, uint16, 4-/2-bit ints, float8, float4)")
    if code and code not in _ONNX_TO_DTYPE:
        raise ONNXImportError(f"QuantizeLinear: output_dtype {code} is not a quantised type")
    return _ONNX_TO_DTYPE.get(code, default)


def _quantize_lowbit(ctx, x, scale, zp, elem: int, attrs):
    """QuantizeLinear to a low-bit type (held as storage, see ``lowbit``)."""
    t = LOWBIT[elem]
    axis, block = int(attrs.get("axis", 1)), int(attrs.get("block_size", 0))
    if t.kind in ("int", "uint"):
        bits = t.bits
        bounds = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t.kind == "int" else (0, (1 << bits) - 1)
        return quantize(ctx, x, scale, zp, t.storage, axis, block, bounds=bounds)
    xd = dtype_of(x)
    s = _broadcastable(ctx, scale, x, axis, block, "QuantizeLinear")
    if dtype_of(s) != xd:
        s = ctx.emit(R.astype(s, xd))
    q = ctx.emit(R.divide(x, s))
    if zp is not None and t.bits == 4:  # float4 adds its zero point; float8 ignores it
        z = _broadcastable(ctx, decode(ctx, zp, elem), x, axis, block, "QuantizeLinear")
        q = ctx.emit(R.add(ctx.emit(R.astype(q, "float32")), z))
    return encode(ctx, q, elem, bool(attrs.get("saturate", 1)))


@converter("QuantizeLinear", since=10)
@_folding
def quantize_linear(ctx, node, inputs, attrs):
    x, scale = inputs[0], inputs[1]
    zp = inputs[2] if len(inputs) > 2 else None
    elem = ctx.input_lowbit(2) if zp is not None else int(attrs.get("output_dtype", 0))
    if is_lowbit(elem):
        if attrs.get("precision"):
            from .common import onnx_dtype

            prec = onnx_dtype(int(attrs["precision"]))
            x, scale = ctx.emit(R.astype(x, prec)), ctx.emit(R.astype(scale, prec))
        return _quantize_lowbit(ctx, x, scale, zp, elem, attrs)
    out_dtype = _quant_dtype(inputs, attrs)
    if out_dtype == "int32":
        raise ONNXImportError("QuantizeLinear: the zero point's type int32 is not a quantised output type")
    if attrs.get("precision"):
        from .common import onnx_dtype

        prec = onnx_dtype(int(attrs["precision"]))
        x = ctx.emit(R.astype(x, prec))
        scale = ctx.emit(R.astype(scale, prec))
    return quantize(ctx, x, scale, zp, out_dtype, int(attrs.get("axis", 1)), int(attrs.get("block_size", 0)))


@converter("DequantizeLinear", since=10)
@_folding
def dequantize_linear(ctx, node, inputs, attrs):
    x, scale = inputs[0], inputs[1]
    zp = inputs[2] if len(inputs) > 2 else None
    elem = ctx.input_lowbit(0)
    if elem is not None:  # low-bit data (and zero point) read as float32 / their integer value
        x = decode(ctx, x, elem)
        if zp is not None:
            zp = decode(ctx, zp, ctx.input_lowbit(2) or elem)
    else:
        _dtype_or_refuse(dtype_of(x), "DequantizeLinear")
    out_dtype = None
    if attrs.get("output_dtype"):
        from .common import onnx_dtype

        out_dtype = onnx_dtype(int(attrs["output_dtype"]))
    return dequantize(ctx, x, scale, zp, int(attrs.get("axis", 1)), int(attrs.get("block_size", 0)), out_dtype)


@converter("DynamicQuantizeLinear", since=11)
@_folding
def dynamic_quantize_linear(ctx, node, inputs, attrs):
    x = inputs[0]
    xd = dtype_of(x)
    if xd != "float32":
        x = ctx.emit(R.astype(x, "float32"))
    zero = _const(0, "float32")
    hi = ctx.emit(R.maximum(ctx.emit(R.max(x)), zero))
    lo = ctx.emit(R.minimum(ctx.emit(R.min(x)), zero))
    span = ctx.emit(R.subtract(hi, lo))
    span = ctx.emit(R.where(ctx.emit(R.equal(span, zero)), _const(1, "float32"), span))
    scale = ctx.emit(R.divide(span, _const(255, "float32")))
    zpf = ctx.emit(R.round(ctx.emit(R.clip(ctx.emit(R.negative(ctx.emit(R.divide(lo, scale)))), 0, 255))))
    q = ctx.emit(R.add(ctx.emit(R.round(ctx.emit(R.divide(x, scale)))), zpf))
    y = ctx.emit(R.astype(ctx.emit(R.clip(q, 0, 255)), "uint8"))
    return [y, scale if xd == "float32" else ctx.emit(R.astype(scale, xd)), ctx.emit(R.astype(zpf, "uint8"))]


def _centered(ctx, x, zero_point, axis_for_vector: int | None):
    """``x - zero_point`` as int32; a 1-D zero point broadcasts along ``axis_for_vector``."""
    xi = ctx.emit(R.astype(x, "int32"))
    if zero_point is None:
        return xi
    zshape = static_shape(zero_point)
    xshape = static_shape(x)
    zp = ctx.emit(R.astype(zero_point, "int32"))
    if zshape and int(np.prod(zshape)) > 1:
        if xshape is None or axis_for_vector is None:
            raise ONNXImportError("a per-channel zero point needs the input's shape at import")
        axis = norm_axis(axis_for_vector, len(xshape))
        dims = [1] * len(xshape)
        dims[axis] = int(np.prod(zshape))
        zp = ctx.emit(R.reshape(zp, dims))
    elif zshape:
        zp = ctx.emit(R.reshape(zp, []))
    return ctx.emit(R.subtract(xi, zp))


def _matmul(ctx, node, a, b):
    fn = find_converter("", "MatMul", max(ctx.opset, 13))
    if fn is None:
        raise OpNotImplemented(f"{node.op_type}: needs the MatMul converter")
    out = fn(ctx, node, [a, b], {})
    return ctx.emit(out) if not isinstance(out, relax.Var) else out


def _conv(ctx, node, x, w, bias, attrs):
    fn = find_converter("", "Conv", max(ctx.opset, 11))
    if fn is None:
        raise OpNotImplemented(f"{node.op_type}: needs the Conv converter")
    conv_attrs = {k: v for k, v in attrs.items()
                  if k in ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")}
    out = fn(ctx, node, [x, w] + ([bias] if bias is not None else []), conv_attrs)
    return ctx.emit(out) if not isinstance(out, relax.Var) else out


def _row_axis(x) -> int:
    return -2 if len(static_shape(x) or ()) >= 2 else -1


@converter("MatMulInteger", since=10)
@_folding
def matmul_integer(ctx, node, inputs, attrs):
    a, b = inputs[0], inputs[1]
    a_zp = inputs[2] if len(inputs) > 2 else None
    b_zp = inputs[3] if len(inputs) > 3 else None
    return _matmul(ctx, node, _centered(ctx, a, a_zp, _row_axis(a)), _centered(ctx, b, b_zp, -1))


@converter("ConvInteger", since=10)
@_folding
def conv_integer(ctx, node, inputs, attrs):
    x, w = inputs[0], inputs[1]
    x_zp = inputs[2] if len(inputs) > 2 else None
    w_zp = inputs[3] if len(inputs) > 3 else None
    return _conv(ctx, node, _centered(ctx, x, x_zp, None), _centered(ctx, w, w_zp, 0), None, attrs)


def _requantize(ctx, acc, in_scale, w_scale, y_scale, y_zp, out_dtype, w_axis):
    """``saturate(rint(acc * in_scale * w_scale / y_scale) + y_zp)``; ``w_scale`` may be per channel."""
    lo, hi = _RANGES[out_dtype]
    ws = ctx.emit(R.astype(w_scale, "float32"))
    ws_shape = static_shape(w_scale)
    if ws_shape and int(np.prod(ws_shape)) > 1:
        ndim = len(static_shape(acc))
        dims = [1] * ndim
        dims[w_axis % ndim] = int(np.prod(ws_shape))
        ws = ctx.emit(R.reshape(ws, dims))
    elif ws_shape:
        ws = ctx.emit(R.reshape(ws, []))

    def scalar(e):
        e = ctx.emit(R.astype(e, "float32"))
        return ctx.emit(R.reshape(e, [])) if static_shape(e) else e

    factor = ctx.emit(R.divide(ctx.emit(R.multiply(scalar(in_scale), ws)), scalar(y_scale)))
    d = ctx.emit(R.multiply(ctx.emit(R.astype(acc, "float32")), factor))
    if y_zp is not None:
        d = ctx.emit(R.add(d, scalar(y_zp)))
    d = ctx.emit(R.round(ctx.emit(R.clip(d, lo, hi))))
    return ctx.emit(R.astype(d, out_dtype))


@converter("QLinearMatMul", since=10)
@_folding
def qlinear_matmul(ctx, node, inputs, attrs):
    a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp = (list(inputs) + [None] * 8)[:8]
    out_dtype = _dtype_or_refuse(dtype_of(y_zp) if y_zp is not None else dtype_of(a), "QLinearMatMul")
    acc = _matmul(ctx, node, _centered(ctx, a, a_zp, _row_axis(a)), _centered(ctx, b, b_zp, -1))
    return _requantize(ctx, acc, a_s, b_s, y_s, y_zp, out_dtype, -1)


@converter("QLinearConv", since=10)
@_folding
def qlinear_conv(ctx, node, inputs, attrs):
    x, x_s, x_zp, w, w_s, w_zp, y_s, y_zp, bias = (list(inputs) + [None] * 9)[:9]
    out_dtype = _dtype_or_refuse(dtype_of(y_zp) if y_zp is not None else dtype_of(x), "QLinearConv")
    acc = _conv(ctx, node, _centered(ctx, x, x_zp, None), _centered(ctx, w, w_zp, 0), bias, attrs)
    return _requantize(ctx, acc, x_s, w_s, y_s, y_zp, out_dtype, 1)

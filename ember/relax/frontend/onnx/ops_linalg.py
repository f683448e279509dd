"""ONNX converters: MatMul, Gemm (and MatMulInteger, which computes in int32)."""

from __future__ import annotations

from ... import op as R
from .common import dtype_of
from .ops_elementwise import scalar
from .registry import converter


HALF = ("float16", "bfloat16")


def _widened(ctx, fn, *args):
    """``fn(*args)`` computed in float32 when the operands are half precision (float32
    accumulation, as ONNX Runtime does), cast back to the operand dtype."""
    dtype = dtype_of(args[0])
    if dtype not in HALF:
        return fn(*args)
    wide = [ctx.emit(R.astype(a, "float32")) if a is not None else None for a in args]
    return R.astype(ctx.emit(fn(*wide)), dtype)


@converter("MatMul", since=1)
def matmul(ctx, node, inputs, attrs):
    return _widened(ctx, R.matmul, inputs[0], inputs[1])


@converter("Gemm", since=1)
def gemm(ctx, node, inputs, attrs):
    a, b = inputs[0], inputs[1]
    c = inputs[2] if len(inputs) > 2 else None
    alpha, beta = attrs.get("alpha", 1.0), attrs.get("beta", 1.0)
    if attrs.get("transA", 0):
        a = ctx.emit(R.permute_dims(a, [1, 0]))
    if attrs.get("transB", 0):
        b = ctx.emit(R.permute_dims(b, [1, 0]))
    out = R.matmul(a, b)
    if alpha != 1.0:
        out = R.multiply(ctx.emit(out), scalar(a, alpha))
    if c is not None:
        if beta != 1.0:
            c = ctx.emit(R.multiply(c, scalar(c, beta)))
        out = R.add(ctx.emit(out), c)
    return out


@converter("MatMulInteger", since=10)
def matmul_integer(ctx, node, inputs, attrs):
    a, b = (R.astype(x, "int32") for x in inputs[:2])
    if len(inputs) > 2 and inputs[2] is not None:
        a = R.subtract(ctx.emit(a), R.astype(inputs[2], "int32"))
    if len(inputs) > 3 and inputs[3] is not None:
        b = R.subtract(ctx.emit(b), R.astype(inputs[3], "int32"))
    return R.matmul(ctx.emit(a), ctx.emit(b))

"""ONNX converters: activations (Relu, LeakyRelu, Elu, Selu, Celu, PRelu, HardSigmoid,
HardSwish, Softplus, Softsign, Mish, Gelu, Swish, ThresholdedRelu, Shrink) and
Softmax / LogSoftmax / Hardmax (with the 2-D coercion of opsets before 13)."""

from __future__ import annotations

import numpy as np

from ... import op as R
from ...expr import const
from .common import dtype_of, ndim_of, norm_axis, shape_of
from .ops_elementwise import scalar
from .registry import converter


@converter("Relu", since=1)
def relu(ctx, node, inputs, attrs):
    x = inputs[0]
    if (dtype_of(x) or "float").startswith("float") or dtype_of(x) == "bfloat16":
        return R.nn.relu(x)
    return R.maximum(x, scalar(x, 0))


@converter("LeakyRelu", since=1)
def leaky_relu(ctx, node, inputs, attrs):
    x = inputs[0]
    alpha = attrs.get("alpha", 0.01)
    return R.where(R.less(x, scalar(x, 0)), R.multiply(x, scalar(x, alpha)), x)


def _in_float32(fn):
    """Converters of compound formulas: half-precision inputs are computed in float32 and
    rounded once at the end (as ONNX's reference and ONNX Runtime do)."""
    import functools

    @functools.wraps(fn)
    def convert(ctx, node, inputs, attrs):
        dtype = dtype_of(inputs[0])
        if dtype not in ("float16", "bfloat16"):
            return fn(ctx, node, inputs, attrs)
        wide = [ctx.emit(R.astype(inputs[0], "float32"))] + list(inputs[1:])
        return R.astype(ctx.emit(fn(ctx, node, wide, attrs)), dtype)

    return convert


def _elu_part(ctx, x, alpha):
    return R.multiply(ctx.emit(R.subtract(R.exp(x), scalar(x, 1))), scalar(x, alpha))


@converter("Elu", since=1)
@_in_float32
def elu(ctx, node, inputs, attrs):
    x = inputs[0]
    neg = ctx.emit(_elu_part(ctx, x, attrs.get("alpha", 1.0)))
    return R.where(R.less(x, scalar(x, 0)), neg, x)


@converter("Selu", since=1)
@_in_float32
def selu(ctx, node, inputs, attrs):
    x = inputs[0]
    alpha = attrs.get("alpha", 1.67326319217681884765625)
    gamma = attrs.get("gamma", 1.05070102214813232421875)
    neg = ctx.emit(_elu_part(ctx, x, alpha))
    return R.multiply(ctx.emit(R.where(R.less_equal(x, scalar(x, 0)), neg, x)), scalar(x, gamma))


@converter("Celu", since=12)
@_in_float32
def celu(ctx, node, inputs, attrs):
    x = inputs[0]
    alpha = attrs.get("alpha", 1.0)
    neg = ctx.emit(_elu_part(ctx, ctx.emit(R.divide(x, scalar(x, alpha))), alpha))
    return R.add(ctx.emit(R.maximum(x, scalar(x, 0))), ctx.emit(R.minimum(neg, scalar(x, 0))))


@converter("PRelu", since=1)
def prelu(ctx, node, inputs, attrs):
    x, slope = inputs
    return R.where(R.less(x, scalar(x, 0)), R.multiply(x, slope), x)


def _hard_sigmoid(ctx, x, alpha, beta):
    y = ctx.emit(R.add(R.multiply(x, scalar(x, alpha)), scalar(x, beta)))
    return R.minimum(ctx.emit(R.maximum(y, scalar(x, 0))), scalar(x, 1))


@converter("HardSigmoid", since=1)
def hard_sigmoid(ctx, node, inputs, attrs):
    return _hard_sigmoid(ctx, inputs[0], attrs.get("alpha", 0.2), attrs.get("beta", 0.5))


@converter("HardSwish", since=14)
def hard_swish(ctx, node, inputs, attrs):
    x = inputs[0]
    return R.multiply(x, ctx.emit(_hard_sigmoid(ctx, x, 1.0 / 6, 0.5)))


def _softplus(ctx, x):
    # log(1 + exp(x)), stable: max(x, 0) + log1p(exp(-|x|))
    t = ctx.emit(R.exp(R.negative(R.abs(x))))
    return R.add(ctx.emit(R.maximum(x, scalar(x, 0))), ctx.emit(R.log(R.add(t, scalar(x, 1)))))


@converter("Softplus", since=1)
def softplus(ctx, node, inputs, attrs):
    return _softplus(ctx, inputs[0])


@converter("Softsign", since=1)
def softsign(ctx, node, inputs, attrs):
    x = inputs[0]
    return R.divide(x, ctx.emit(R.add(R.abs(x), scalar(x, 1))))


@converter("Mish", since=18)
def mish(ctx, node, inputs, attrs):
    x = inputs[0]
    return R.multiply(x, ctx.emit(R.tanh(ctx.emit(_softplus(ctx, x)))))


@converter("Gelu", since=20)
def gelu(ctx, node, inputs, attrs):
    x = inputs[0]
    if attrs.get("approximate", "none") == "tanh":
        inner = R.multiply(scalar(x, np.sqrt(2 / np.pi)),
                           R.add(x, R.multiply(scalar(x, 0.044715), R.multiply(x, R.multiply(x, x)))))
        return R.multiply(R.multiply(scalar(x, 0.5), x), R.add(scalar(x, 1), R.tanh(inner)))
    return R.multiply(R.multiply(scalar(x, 0.5), x),
                      R.add(scalar(x, 1), R.erf(R.multiply(x, scalar(x, 1 / np.sqrt(2))))))


@converter("Swish", since=24)
def swish(ctx, node, inputs, attrs):
    x = inputs[0]
    return R.multiply(x, R.sigmoid(R.multiply(x, scalar(x, attrs.get("alpha", 1.0)))))


@converter("ThresholdedRelu", since=10)
def thresholded_relu(ctx, node, inputs, attrs):
    x = inputs[0]
    return R.where(R.greater(x, scalar(x, attrs.get("alpha", 1.0))), x, R.zeros_like(x))


@converter("Shrink", since=9)
def shrink(ctx, node, inputs, attrs):
    x = inputs[0]
    lambd, bias = attrs.get("lambd", 0.5), attrs.get("bias", 0.0)
    zero = R.zeros_like(x)
    low = R.where(R.less(x, scalar(x, -lambd)), R.add(x, scalar(x, bias)), zero)
    return R.where(R.greater(x, scalar(x, lambd)), R.subtract(x, scalar(x, bias)), low)


def _coerced(fn):
    """Softmax-like ops: opset < 13 flattens to 2-D at ``axis`` (default 1)."""

    def convert(ctx, node, inputs, attrs):
        x = inputs[0]
        ndim = ndim_of(x)
        if ctx.opset >= 13:
            return fn(ctx, x, norm_axis(attrs.get("axis", -1), ndim))
        axis = norm_axis(attrs.get("axis", 1), ndim)
        dims = shape_of(x)
        if axis == ndim - 1:
            return fn(ctx, x, axis)
        outer, inner = 1, 1
        for d in dims[:axis]:
            outer = outer * d
        for d in dims[axis:]:
            inner = inner * d
        flat = ctx.emit(R.reshape(x, [outer, inner]))
        return R.reshape(ctx.emit(fn(ctx, flat, 1)), dims)

    return convert


def _hardmax(ctx, x, axis):
    idx = ctx.emit(R.argmax(x, axis, keepdims=True))
    n = shape_of(x)[axis]
    shape = [1] * ndim_of(x)
    shape[axis] = n
    positions = const(np.arange(n, dtype=dtype_of(idx)).reshape(shape))
    return R.astype(R.equal(positions, idx), dtype_of(x))


def _wide(fn):
    """Half-precision inputs are normalised in float32 and cast back."""

    def compute(ctx, x, axis):
        dtype = dtype_of(x)
        if dtype in ("float16", "bfloat16"):
            return R.astype(ctx.emit(fn(ctx.emit(R.astype(x, "float32")), axis)), dtype)
        return fn(x, axis)

    return compute


converter("Softmax", since=1)(_coerced(_wide(R.nn.softmax)))
converter("LogSoftmax", since=1)(_coerced(_wide(R.nn.log_softmax)))
converter("Hardmax", since=1)(_coerced(_hardmax))

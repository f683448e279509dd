"""Activation converters: relu family, gelu, silu, elu/selu/celu, leaky/p-relu, softplus,
hard-sigmoid/-swish/-tanh, mish, shrinks, threshold, glu, softmax and log-softmax."""

from __future__ import annotations

from ember.relax import op as R

from .registry import converter


@converter("aten.relu.default", "aten.relu_.default")
def relu(ctx, x):
    return R.nn.relu(x)


@converter("aten.relu6.default", "aten.relu6_.default")
def relu6(ctx, x):
    return R.clip(x, 0.0, 6.0)


@converter("aten.hardtanh.default", "aten.hardtanh_.default")
def hardtanh(ctx, x, lo=-1.0, hi=1.0):
    return R.clip(x, float(lo), float(hi))


@converter("aten.gelu.default", "aten.gelu_.default")
def gelu(ctx, x, approximate="none"):
    return R.nn.gelu_tanh(x) if approximate == "tanh" else R.nn.gelu(x)


@converter("aten.silu.default", "aten.silu_.default")
def silu(ctx, x):
    return R.nn.silu(x)


@converter("aten.elu.default", "aten.elu_.default")
def elu(ctx, x, alpha=1.0, scale=1.0, input_scale=1.0):
    dtype = ctx.dtype(x)
    xs = ctx.emit(R.multiply(x, ctx.const(input_scale, dtype))) if input_scale != 1 else x
    neg = ctx.emit(R.multiply(ctx.const(alpha, dtype), ctx.emit(R.subtract(ctx.emit(R.exp(xs)), ctx.const(1, dtype)))))
    out = ctx.emit(R.where(ctx.emit(R.greater(x, ctx.const(0, dtype))), x, neg))
    return R.multiply(out, ctx.const(scale, dtype)) if scale != 1 else out


@converter("aten.selu.default", "aten.selu_.default")
def selu(ctx, x):
    return R.nn.selu(x)


@converter("aten.celu.default", "aten.celu_.default")
def celu(ctx, x, alpha=1.0):
    return elu(ctx, x, alpha, 1.0, 1.0 / alpha)


@converter("aten.leaky_relu.default", "aten.leaky_relu_.default")
def leaky_relu(ctx, x, slope=0.01):
    return R.nn.leakyrelu(x, float(slope))


@converter("aten.prelu.default", "aten._prelu_kernel.default")
def prelu(ctx, x, weight):
    dtype = ctx.dtype(x)
    ndim = ctx.ndim(x)
    n = ctx.shape(weight)[0] if ctx.ndim(weight) else 1
    if ndim >= 2 and n != 1:
        weight = ctx.emit(R.reshape(weight, [1, n] + [1] * (ndim - 2)))
    neg = ctx.emit(R.multiply(x, weight))
    return R.where(ctx.emit(R.greater(x, ctx.const(0, dtype))), x, neg)


@converter("aten.softplus.default")
def softplus(ctx, x, beta=1.0, threshold=20.0):
    return R.nn.softplus(x, float(beta), float(threshold))


@converter("aten.hardsigmoid.default", "aten.hardsigmoid_.default")
def hardsigmoid(ctx, x):
    dtype = ctx.dtype(x)
    return R.divide(ctx.emit(R.clip(ctx.emit(R.add(x, ctx.const(3, dtype))), 0.0, 6.0)), ctx.const(6, dtype))


@converter("aten.hardswish.default", "aten.hardswish_.default")
def hardswish(ctx, x):
    return R.multiply(x, ctx.emit(hardsigmoid(ctx, x)))


@converter("aten.mish.default", "aten.mish_.default")
def mish(ctx, x):
    return R.multiply(x, ctx.emit(R.tanh(ctx.emit(softplus(ctx, x)))))


@converter("aten.log_sigmoid_forward.default")
def log_sigmoid_forward(ctx, x):
    return [logsigmoid(ctx, x), None]


@converter("aten.log_sigmoid.default")
def logsigmoid(ctx, x):
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|
    dtype = ctx.dtype(x)
    tail = ctx.emit(R.log1p(ctx.emit(R.exp(ctx.emit(R.negative(ctx.emit(R.abs(x))))))))
    return R.subtract(ctx.emit(R.minimum(x, ctx.const(0, dtype))), tail)


@converter("aten.softshrink.default", "aten.hardshrink.default")
def shrink(ctx, x, lambd=0.5):
    dtype = ctx.dtype(x)
    big = ctx.emit(R.greater(ctx.emit(R.abs(x)), ctx.const(lambd, dtype)))
    if "hardshrink" in str(ctx.node.target):
        return R.where(big, x, ctx.const(0, dtype))
    shrunk = ctx.emit(R.subtract(x, ctx.emit(R.multiply(ctx.emit(R.sign(x)), ctx.const(lambd, dtype)))))
    return R.where(big, shrunk, ctx.const(0, dtype))


@converter("aten.threshold.default", "aten.threshold_.default")
def threshold(ctx, x, thresh, value):
    dtype = ctx.dtype(x)
    return R.where(ctx.emit(R.greater(x, ctx.const(thresh, dtype))), x, ctx.const(value, dtype))


@converter("aten.glu.default")
def glu(ctx, x, dim=-1):
    halves = ctx.emit(R.split(x, 2, ctx.norm_axis(dim, ctx.ndim(x))))
    first, second = ctx.tuple_item(halves, 0), ctx.tuple_item(halves, 1)
    return R.multiply(first, ctx.emit(R.sigmoid(second)))


def _softmax_input(ctx, x, dtype):
    if dtype is not None:
        from .importer import torch_dtype

        return ctx.operand(x, torch_dtype(dtype))
    return x


@converter("aten._softmax.default", "aten.softmax.int", "aten._safe_softmax.default")
def softmax(ctx, x, dim=-1, half_to_float_or_dtype=None):
    dtype = half_to_float_or_dtype if not isinstance(half_to_float_or_dtype, bool) else None
    return R.nn.softmax(_softmax_input(ctx, x, dtype), dim)


@converter("aten._log_softmax.default", "aten.log_softmax.int")
def log_softmax(ctx, x, dim=-1, half_to_float_or_dtype=None):
    dtype = half_to_float_or_dtype if not isinstance(half_to_float_or_dtype, bool) else None
    return R.nn.log_softmax(_softmax_input(ctx, x, dtype), dim)


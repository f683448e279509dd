"""ONNX converters: normalisations — BatchNormalization (inference), InstanceNormalization,
LayerNormalization, GroupNormalization, RMSNormalization, LRN, LpNormalization,
MeanVarianceNormalization.

Statistics are written as Relax arithmetic (mean/variance by reductions) so that the
optional outputs (LayerNormalization's Mean and InvStdDev) come for free; half-precision
inputs are computed in float32 when ``stash_type`` asks for it.  BatchNormalization with
constant statistics folds into one scale and one shift at import.
"""

from __future__ import annotations

import numpy as np

from ... import op as R
from ...expr import const
from .common import dtype_of, ndim_of, norm_axes, norm_axis, np_dtype, shape_of
from .ops_elementwise import scalar
from .registry import converter


def _channel_shape(x, axis: int = 1) -> list[int]:
    shape = [1] * ndim_of(x)
    shape[axis] = -1
    return shape


@converter("BatchNormalization", since=1)
def batch_norm(ctx, node, inputs, attrs):
    x, scale, bias, mean, var = inputs[:5]
    eps = attrs.get("epsilon", 1e-5)
    if attrs.get("training_mode", 0):
        return _batch_norm_training(ctx, x, scale, bias, mean, var, eps, attrs.get("momentum", 0.9))
    if len(node.output) > 1 and any(node.output[1:]):
        raise ctx.error("BatchNormalization's running statistics outputs need training_mode=1")
    values = [ctx.const_value(t) for t in (scale, bias, mean, var)]
    shape = _channel_shape(x)
    if all(v is not None for v in values):
        s, b, m, v = (np.asarray(t, dtype="float64") for t in values)
        a = s / np.sqrt(v + eps)
        dt = np_dtype(dtype_of(x))
        mul = const((a).astype(dt).reshape([-1] + [1] * (ndim_of(x) - 2)))
        add = const((b - m * a).astype(dt).reshape([-1] + [1] * (ndim_of(x) - 2)))
        return R.add(ctx.emit(R.multiply(x, mul)), add)
    inv = ctx.emit(R.divide(scale, R.sqrt(ctx.emit(R.add(var, scalar(var, eps))))))
    centered = ctx.emit(R.subtract(x, ctx.emit(R.reshape(mean, shape))))
    scaled = ctx.emit(R.multiply(centered, ctx.emit(R.reshape(inv, shape))))
    return R.add(scaled, ctx.emit(R.reshape(bias, shape)))


def _batch_norm_training(ctx, x, scale, bias, mean, var, eps, momentum):
    """Normalise with the batch's statistics; also return the updated running statistics."""
    axes = [0] + list(range(2, ndim_of(x)))
    shape = _channel_shape(x)
    y, batch_mean, _ = _standardize(ctx, x, axes, eps)
    y = ctx.emit(R.multiply(y, ctx.emit(R.reshape(scale, shape))))
    y = ctx.emit(R.add(y, ctx.emit(R.reshape(bias, shape))))
    centered = ctx.emit(R.subtract(x, batch_mean))
    batch_var = ctx.emit(R.mean(ctx.emit(R.multiply(centered, centered)), axes))
    m = ctx.emit(R.reshape(batch_mean, [-1]))
    keep, new = scalar(mean, momentum), scalar(mean, 1 - momentum)
    running_mean = ctx.emit(R.add(R.multiply(mean, keep), R.multiply(m, new)))
    running_var = ctx.emit(R.add(R.multiply(var, keep), R.multiply(batch_var, new)))
    return [y, running_mean, running_var]


def _standardize(ctx, x, axes, eps):
    """``(x - mean) / sqrt(var + eps)``, the mean and 1/std (keepdims)."""
    mean = ctx.emit(R.mean(x, axes, keepdims=True))
    centered = ctx.emit(R.subtract(x, mean))
    var = ctx.emit(R.mean(ctx.emit(R.multiply(centered, centered)), axes, keepdims=True))
    inv_std = ctx.emit(R.rsqrt(ctx.emit(R.add(var, scalar(x, eps)))))
    return ctx.emit(R.multiply(centered, inv_std)), mean, inv_std


def _stash(ctx, x, attrs):
    dtype = dtype_of(x)
    if attrs.get("stash_type", 1) == 1 and dtype in ("float16", "bfloat16"):
        return ctx.emit(R.astype(x, "float32")), dtype
    return x, dtype


@converter("InstanceNormalization", since=1)
def instance_norm(ctx, node, inputs, attrs):
    x, scale, bias = inputs
    axes = list(range(2, ndim_of(x)))
    y, _, _ = _standardize(ctx, x, axes, attrs.get("epsilon", 1e-5))
    shape = _channel_shape(x)
    y = ctx.emit(R.multiply(y, ctx.emit(R.reshape(scale, shape))))
    return R.add(y, ctx.emit(R.reshape(bias, shape)))


@converter("LayerNormalization", since=17)
def layer_norm(ctx, node, inputs, attrs):
    x = inputs[0]
    scale = inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    ndim = ndim_of(x)
    axis = norm_axis(attrs.get("axis", -1), ndim)
    xs, dtype = _stash(ctx, x, attrs)
    y, mean, inv_std = _standardize(ctx, xs, list(range(axis, ndim)), attrs.get("epsilon", 1e-5))
    if dtype_of(y) != dtype:
        y = ctx.emit(R.astype(y, dtype))
    y = ctx.emit(R.multiply(y, scale))
    if bias is not None:
        y = ctx.emit(R.add(y, bias))
    outs = [y]
    if len(node.output) > 1:
        outs += [mean, inv_std]
    return outs


@converter("GroupNormalization", since=18)
def group_norm(ctx, node, inputs, attrs):
    x, scale, bias = inputs
    groups = attrs["num_groups"]
    dims = shape_of(x)
    xs, dtype = _stash(ctx, x, attrs)
    grouped = ctx.emit(R.reshape(xs, [dims[0], groups, -1]))
    y, _, _ = _standardize(ctx, grouped, [2], attrs.get("epsilon", 1e-5))
    if ctx.opset < 21:  # scale and bias are per group
        y = ctx.emit(R.multiply(y, ctx.emit(R.reshape(R.astype(scale, dtype_of(y)), [1, groups, 1]))))
        y = ctx.emit(R.add(y, ctx.emit(R.reshape(R.astype(bias, dtype_of(y)), [1, groups, 1]))))
        y = ctx.emit(R.reshape(y, dims))
        return R.astype(y, dtype) if dtype_of(y) != dtype else y
    y = ctx.emit(R.reshape(y, dims))
    if dtype_of(y) != dtype:
        y = ctx.emit(R.astype(y, dtype))
    shape = _channel_shape(x)
    y = ctx.emit(R.multiply(y, ctx.emit(R.reshape(scale, shape))))
    return R.add(y, ctx.emit(R.reshape(bias, shape)))


@converter("RMSNormalization", since=23)
def rms_norm(ctx, node, inputs, attrs):
    x, scale = inputs[0], inputs[1]
    ndim = ndim_of(x)
    axis = norm_axis(attrs.get("axis", -1), ndim)
    xs, dtype = _stash(ctx, x, attrs)
    ms = ctx.emit(R.mean(ctx.emit(R.multiply(xs, xs)), list(range(axis, ndim)), keepdims=True))
    y = ctx.emit(R.multiply(xs, ctx.emit(R.rsqrt(ctx.emit(R.add(ms, scalar(xs, attrs.get("epsilon", 1e-5))))))))
    if dtype_of(y) != dtype:
        y = ctx.emit(R.astype(y, dtype))
    return R.multiply(y, scale)


@converter("LpNormalization", since=1)
def lp_norm(ctx, node, inputs, attrs):
    x = inputs[0]
    axis = norm_axis(attrs.get("axis", -1), ndim_of(x))
    p = attrs.get("p", 2)
    if p == 1:
        norm = ctx.emit(R.sum(ctx.emit(R.abs(x)), [axis], keepdims=True))
    else:
        norm = ctx.emit(R.sqrt(ctx.emit(R.sum(ctx.emit(R.multiply(x, x)), [axis], keepdims=True))))
    safe = ctx.emit(R.where(R.equal(norm, scalar(x, 0)), R.ones_like(norm), norm))
    return R.divide(x, safe)


@converter("MeanVarianceNormalization", since=9)
def mean_variance_norm(ctx, node, inputs, attrs):
    x = inputs[0]
    axes = norm_axes(attrs.get("axes", [0, 2, 3]), ndim_of(x))
    mean = ctx.emit(R.mean(x, axes, keepdims=True))
    centered = ctx.emit(R.subtract(x, mean))
    var = ctx.emit(R.mean(ctx.emit(R.multiply(centered, centered)), axes, keepdims=True))
    return R.divide(centered, ctx.emit(R.add(R.sqrt(var), scalar(x, 1e-9))))


@converter("LRN", since=1)
def lrn(ctx, node, inputs, attrs):
    """One kernel (``topi.nn.lrn_channels``) marked with its parameters (PrimFunc attribute
    ``ember.lrn``: size, alpha, beta, bias), so that the layout pass can give a channel-blocked
    input ``topi.nn.lrn_nchwc`` instead of transforming it back to NCHW."""
    from ember import topi

    x = inputs[0]
    size = int(attrs["size"])
    alpha, beta, bias = attrs.get("alpha", 1e-4), attrs.get("beta", 0.75), attrs.get("bias", 1.0)
    channels = shape_of(x)[1]
    if not isinstance(channels, int):
        raise ctx.error("LRN needs a static channel count")
    if size < 1:
        raise ctx.error(f"LRN: size must be positive, got {size}")
    params = [float(size), float(alpha), float(beta), float(bias)]
    return ctx.bb.emit_te(topi.nn.lrn_channels, x, size, float(alpha), float(beta), float(bias),
                          primfunc_name_hint="lrn", primfunc_attrs={"ember.lrn": params})

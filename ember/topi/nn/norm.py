"""Normalisation layers: layer_norm, rms_norm, group_norm, batch_norm (inference)."""

from __future__ import annotations

from ember import te
from ember.ir import const
from ember.tir import op as tir_op

from ..utils import normalize_axis, prod

__all__ = ["layer_norm", "rms_norm", "group_norm", "batch_norm"]

_sum2 = te.comm_reducer(lambda x, y: (x[0] + y[0], x[1] + y[1]),
                        lambda t0, t1: (const(0, t0), const(0, t1)), name="sum2")


def _moments(data, axes, name):
    """(sum, sum of squares) of ``data`` over ``axes`` in one reduction, keeping dims."""
    raxes = {d: te.reduce_axis((0, data.shape[d]), name=f"k{d}") for d in axes}
    shape = tuple(const(1, s.dtype) if d in axes else s for d, s in enumerate(data.shape))

    def f(*idx):
        src = [raxes[d].var if d in raxes else i for d, i in enumerate(idx)]
        v = data(*src)
        return _sum2((v, v * v), axis=[raxes[d] for d in axes])

    return te.compute(shape, f, name=name)


def _keep(idx, axes):
    return [const(0, i.dtype) if d in axes else i for d, i in enumerate(idx)]


def _standardize(x, total, total_sq, count, epsilon: float):
    """``(x - mean) / sqrt(var + eps)`` from the sum and the sum of squares of ``count`` values."""
    mean = total / count
    var = total_sq / count - mean * mean
    return (x - mean) * tir_op.rsqrt(var + const(epsilon, x.dtype))


def layer_norm(data, gamma, beta, axis, epsilon: float = 1e-5) -> te.Tensor:
    """``(x - mean) / sqrt(var + eps) * gamma + beta`` over ``axis``; gamma/beta span those dims."""
    axes = normalize_axis(axis, data.ndim)
    s, sq = _moments(data, axes, "T_layer_norm_red_temp")
    count = tir_op.cast(prod([data.shape[d] for d in axes]), data.dtype)

    def f(*idx):
        red = _keep(idx, axes)
        out = _standardize(data(*idx), s(*red), sq(*red), count, epsilon)
        aff = [idx[d] for d in axes]
        if gamma is not None:
            out = out * gamma(*aff)
        if beta is not None:
            out = out + beta(*aff)
        return out

    return te.compute(data.shape, f, name="T_layer_norm")


def rms_norm(data, weight, axis, epsilon: float = 1e-5) -> te.Tensor:
    """``x / sqrt(mean(x^2) + eps) * weight`` over ``axis``."""
    axes = normalize_axis(axis, data.ndim)
    _, sq = _moments(data, axes, "T_rms_norm_red_temp")
    count = tir_op.cast(prod([data.shape[d] for d in axes]), data.dtype)

    def f(*idx):
        out = data(*idx) * tir_op.rsqrt(sq(*_keep(idx, axes)) / count + const(epsilon, data.dtype))
        return out * weight(*[idx[d] for d in axes]) if weight is not None else out

    return te.compute(data.shape, f, name="T_rms_norm")


def group_norm(data, gamma, beta, num_groups: int, channel_axis: int, axes, epsilon: float = 1e-5) -> te.Tensor:
    """Normalise each group of channels over the channel group and ``axes``."""
    from ..transform import reshape

    (c_axis,) = normalize_axis(channel_axis, data.ndim)
    channels = data.shape[c_axis]
    shape = data.shape[:c_axis] + (const(num_groups, channels.dtype), tir_op.floordiv(channels, num_groups)) + data.shape[c_axis + 1:]
    grouped = reshape(data, shape)
    red_axes = [c_axis + 1] + [a + 1 if a > c_axis else a for a in normalize_axis(axes, data.ndim)]
    red_axes = sorted(set(red_axes))
    s, sq = _moments(grouped, red_axes, "T_group_norm_red_temp")
    count = tir_op.cast(prod([shape[d] for d in red_axes]), data.dtype)
    per_group = tir_op.floordiv(channels, num_groups)

    def f(*idx):
        g = tir_op.floordiv(idx[c_axis], per_group)
        gidx = list(idx[:c_axis]) + [g, tir_op.floormod(idx[c_axis], per_group)] + list(idx[c_axis + 1:])
        red = _keep(gidx, red_axes)
        out = _standardize(data(*idx), s(*red), sq(*red), count, epsilon)
        return out * gamma(idx[c_axis]) + beta(idx[c_axis])

    return te.compute(data.shape, f, name="T_group_norm")


def batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1, epsilon: float = 1e-5,
               center: bool = True, scale: bool = True, training: bool = False, momentum: float = 0.1):
    """Inference batch norm over channel ``axis``: ``[out, moving_mean, moving_var]`` (copies)."""
    if training:
        raise NotImplementedError("topi.nn.batch_norm: only inference (training=False) is implemented")
    (axis,) = normalize_axis(axis, data.ndim)

    def f(*idx):
        c = idx[axis]
        out = (data(*idx) - moving_mean(c)) * tir_op.rsqrt(moving_var(c) + const(epsilon, data.dtype))
        if scale:
            out = out * gamma(c)
        if center:
            out = out + beta(c)
        return out

    out = te.compute(data.shape, f, name="T_batch_norm")
    # the running statistics come back unchanged, as copies so that no placeholder is
    # also an output (as TVM does with ``moving_mean * 1``)
    mean_out = te.compute(moving_mean.shape, lambda *i: moving_mean(*i), name="T_moving_mean")
    var_out = te.compute(moving_var.shape, lambda *i: moving_var(*i), name="T_moving_var")
    return [out, mean_out, var_out]


def instance_norm(data, gamma, beta, channel_axis: int, axis, epsilon: float = 1e-5) -> te.Tensor:
    """Normalise over ``axis`` separately for every sample and channel."""
    axes = normalize_axis(axis, data.ndim)
    (c_axis,) = normalize_axis(channel_axis, data.ndim)
    s, sq = _moments(data, axes, "T_instance_norm_red_temp")
    count = tir_op.cast(prod([data.shape[d] for d in axes]), data.dtype)

    def f(*idx):
        red = _keep(idx, axes)
        out = _standardize(data(*idx), s(*red), sq(*red), count, epsilon)
        if gamma is not None:
            out = out * gamma(idx[c_axis])
        if beta is not None:
            out = out + beta(idx[c_axis])
        return out

    return te.compute(data.shape, f, name="T_instance_norm")


__all__.append("instance_norm")

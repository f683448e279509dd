"""Activations and normalisations of ``relax.nn``: relu, gelu, silu, softmax, log_softmax,
dropout, layer_norm, batch_norm, group_norm, rms_norm."""

from __future__ import annotations

from ...expr import Call
from ...struct_info import TensorStructInfo, TupleStructInfo, shape_values
from ..attrs import (
    BatchNormAttrs, InstanceNormAttrs, LeakyReluAttrs, PReluAttrs, DropoutAttrs, GroupNormAttrs, LayerNormAttrs, RMSNormAttrs, SoftmaxAttrs,
)
from ..base import make_call, normalize_axes, normalize_axis, register, shape_str, tensor_arg

__all__ = [
    "relu", "gelu", "gelu_tanh", "silu", "leakyrelu", "softmax", "log_softmax", "dropout",
    "layer_norm", "batch_norm", "group_norm", "rms_norm", "prelu", "instance_norm",
]


def _float_same(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    if x.dtype is not None and not x.dtype.is_float:
        raise TypeError(f"{call.op.name} needs a float tensor, got dtype {x.dtype}")
    return TensorStructInfo(x.shape, x.dtype, x.vdevice, x.ndim)


def _same(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    return TensorStructInfo(x.shape, x.dtype, x.vdevice, x.ndim)


_ACTIVATIONS = {"relu": _same, "gelu": _float_same, "gelu_tanh": _float_same, "silu": _float_same,
                "leakyrelu": _same}

for _n, _rule in _ACTIVATIONS.items():
    register("nn." + _n, _rule, arg_names=("data",))


def relu(data) -> Call:
    return make_call("nn.relu", [data])


def gelu(data) -> Call:
    return make_call("nn.gelu", [data])


def gelu_tanh(data) -> Call:
    return make_call("nn.gelu_tanh", [data])


def silu(data) -> Call:
    return make_call("nn.silu", [data])


def leakyrelu(data, alpha: float = 0.01) -> Call:
    """``data`` where positive, ``alpha * data`` elsewhere."""
    return make_call("nn.leakyrelu", [data], LeakyReluAttrs(float(alpha)))


def _infer_softmax(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    if x.dtype is not None and not x.dtype.is_float:
        raise TypeError(f"{call.op.name} needs a float tensor, got dtype {x.dtype}")
    if x.ndim != -1:
        normalize_axis(call, call.attrs.axis, x.ndim)
    return TensorStructInfo(x.shape, x.dtype, x.vdevice, x.ndim)


register("nn.softmax", _infer_softmax, arg_names=("data",))
register("nn.log_softmax", _infer_softmax, arg_names=("data",))


def softmax(data, axis: int = -1) -> Call:
    return make_call("nn.softmax", [data], SoftmaxAttrs(int(axis)))


def log_softmax(data, axis: int = -1) -> Call:
    return make_call("nn.log_softmax", [data], SoftmaxAttrs(int(axis)))


def _infer_dropout(call: Call, ctx) -> TupleStructInfo:
    x = _float_same(call, ctx)
    return TupleStructInfo([x, x])


register("nn.dropout", _infer_dropout, arg_names=("data",))


def dropout(data, rate: float = 0.5) -> Call:
    """Returns ``(output, mask)``; at inference time the output is the input."""
    return make_call("nn.dropout", [data], DropoutAttrs(float(rate)))


# -- normalisations --------------------------------------------------------------------

def _check_params(call: Call, x: TensorStructInfo, axes: list[int], first_param: int, count: int) -> None:
    """gamma/beta/… must have the shape of the normalised axes."""
    xv = shape_values(x)
    for i in range(first_param, first_param + count):
        p = tensor_arg(call, i)
        if p.ndim != -1 and p.ndim != len(axes):
            raise ValueError(
                f"{call.op.name}: {call.op.get_attr('arg_names')[i]} must have {len(axes)} dims "
                f"(one per normalised axis), got {p.ndim}"
            )
        pv = shape_values(p)
        if xv is None or pv is None:
            continue
        from ..._arith import prove_not_equal

        for d, a in zip(pv, axes):
            if prove_not_equal(d, xv[a]):
                raise ValueError(
                    f"{call.op.name}: {call.op.get_attr('arg_names')[i]} has shape {shape_str(pv)}, "
                    f"which does not match axis {a} of data shape {shape_str(xv)}"
                )


def _infer_layer_norm(call: Call, ctx) -> TensorStructInfo:
    x = _float_same(call, ctx)
    if x.ndim != -1:
        axes = normalize_axes(call, call.attrs.axes, x.ndim)
        _check_params(call, x, axes, 1, 2)
    return x


register("nn.layer_norm", _infer_layer_norm, arg_names=("data", "gamma", "beta"))


def _axes(a):
    return (int(a),) if isinstance(a, int) else tuple(int(i) for i in a)


def layer_norm(data, gamma, beta, axes=-1, epsilon: float = 1e-5, center: bool = True, scale: bool = True) -> Call:
    return make_call("nn.layer_norm", [data, gamma, beta], LayerNormAttrs(_axes(axes), float(epsilon), center, scale))


def _infer_rms_norm(call: Call, ctx) -> TensorStructInfo:
    x = _float_same(call, ctx)
    if x.ndim != -1:
        axes = normalize_axes(call, call.attrs.axes, x.ndim)
        _check_params(call, x, axes, 1, 1)
    return x


register("nn.rms_norm", _infer_rms_norm, arg_names=("data", "weight"))


def rms_norm(data, weight, axes=-1, epsilon: float = 1e-5) -> Call:
    return make_call("nn.rms_norm", [data, weight], RMSNormAttrs(_axes(axes), float(epsilon)))


def _infer_batch_norm(call: Call, ctx) -> TupleStructInfo:
    x = _float_same(call, ctx)
    stats = tensor_arg(call, 3)
    if x.ndim != -1:
        axis = normalize_axis(call, call.attrs.axis, x.ndim)
        _check_params(call, x, [axis], 1, 4)
    return TupleStructInfo([x, stats, TensorStructInfo(stats.shape, stats.dtype, stats.vdevice, stats.ndim)])


register("nn.batch_norm", _infer_batch_norm, arg_names=("data", "gamma", "beta", "moving_mean", "moving_var"))


def batch_norm(data, gamma, beta, moving_mean, moving_var, axis: int = 1, epsilon: float = 1e-5,
               center: bool = True, scale: bool = True, momentum: float = 0.1, training: bool = True) -> Call:
    """Returns ``(output, new_moving_mean, new_moving_var)``."""
    attrs = BatchNormAttrs(int(axis), float(epsilon), center, scale, float(momentum), training)
    return make_call("nn.batch_norm", [data, gamma, beta, moving_mean, moving_var], attrs)


def _infer_group_norm(call: Call, ctx) -> TensorStructInfo:
    x = _float_same(call, ctx)
    if x.ndim != -1:
        c = normalize_axis(call, call.attrs.channel_axis, x.ndim)
        normalize_axes(call, call.attrs.axes, x.ndim)
        _check_params(call, x, [c], 1, 2)
        xv = shape_values(x)
        from ..._arith import as_int

        n = as_int(xv[c]) if xv is not None else None
        if n is not None and n % call.attrs.num_groups:
            raise ValueError(
                f"relax.nn.group_norm: {n} channels cannot be divided into {call.attrs.num_groups} groups"
            )
    return x


register("nn.group_norm", _infer_group_norm, arg_names=("data", "gamma", "beta"))


def group_norm(data, gamma, beta, num_groups: int, channel_axis: int, axes, epsilon: float = 1e-5,
               center: bool = True, scale: bool = True) -> Call:
    attrs = GroupNormAttrs(int(num_groups), int(channel_axis), _axes(axes), float(epsilon), center, scale)
    return make_call("nn.group_norm", [data, gamma, beta], attrs)




def _infer_prelu(call: Call, ctx) -> TensorStructInfo:
    x = _float_same(call, ctx)
    alpha = tensor_arg(call, 1)
    if x.ndim != -1:
        axis = normalize_axis(call, call.attrs.axis, x.ndim)
        if alpha.ndim not in (-1, 1):
            raise ValueError(f"relax.nn.prelu: alpha must be 1-D (one slope per channel), got {alpha.ndim} dims")
        _check_params(call, x, [axis], 1, 1)
    return x


register("nn.prelu", _infer_prelu, arg_names=("data", "alpha"))


def prelu(data, alpha, axis: int = 1) -> Call:
    """``data`` where positive, ``alpha[c] * data`` elsewhere (one slope per channel along ``axis``)."""
    return make_call("nn.prelu", [data, alpha], PReluAttrs(int(axis)))


def _infer_instance_norm(call: Call, ctx) -> TensorStructInfo:
    x = _float_same(call, ctx)
    if x.ndim != -1:
        c = normalize_axis(call, call.attrs.channel_axis, x.ndim)
        normalize_axes(call, call.attrs.axes, x.ndim)
        _check_params(call, x, [c], 1, 2)
    return x


register("nn.instance_norm", _infer_instance_norm, arg_names=("data", "gamma", "beta"))


def instance_norm(data, gamma, beta, channel_axis: int = 1, axes=None, epsilon: float = 1e-5,
                  center: bool = True, scale: bool = True) -> Call:
    """Normalise each (sample, channel) over ``axes`` (the spatial dims by default)."""
    if axes is None:
        axes = (2, 3)
    return make_call("nn.instance_norm", [data, gamma, beta],
                     InstanceNormAttrs(int(channel_axis), _axes(axes), float(epsilon), center, scale))

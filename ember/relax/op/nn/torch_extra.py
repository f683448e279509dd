"""``relax.nn`` ops PyTorch models use that the core set lacks: ``selu``, ``softplus``
(beta, threshold), ``conv1d_transpose`` (NCW, weight IOW) and ``nll_loss``."""

from __future__ import annotations

from ember.ir import node

from ...expr import Call
from ...struct_info import TensorStructInfo, shape_values
from ..attrs import Attrs, Conv1DTransposeAttrs
from ..base import make_call, register, tensor_arg

__all__ = ["selu", "softplus", "conv1d_transpose", "nll_loss"]


@node
class SoftplusAttrs(Attrs):
    beta: float
    threshold: float


@node
class NLLLossAttrs(Attrs):
    reduction: str
    ignore_index: int


def _float_same(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    if x.dtype is not None and not x.dtype.is_float:
        raise TypeError(f"{call.op.name} needs a float tensor, got dtype {x.dtype}")
    return TensorStructInfo(x.shape, x.dtype, x.vdevice, x.ndim)


register("nn.selu", _float_same, arg_names=("data",))
register("nn.softplus", _float_same, arg_names=("data",))


def selu(data) -> Call:
    return make_call("nn.selu", [data])


def softplus(data, beta: float = 1.0, threshold: float = 20.0) -> Call:
    return make_call("nn.softplus", [data], SoftplusAttrs(float(beta), float(threshold)))


def _one(v) -> tuple:
    return tuple(int(i) for i in (v if isinstance(v, list | tuple) else [v]))


def _infer_conv1d_transpose(call: Call, ctx) -> TensorStructInfo:
    x, w = tensor_arg(call, 0), tensor_arg(call, 1)
    a = call.attrs
    xv, wv = shape_values(x), shape_values(w)
    dtype = a.out_dtype or x.dtype
    if x.ndim not in (-1, 3) or w.ndim not in (-1, 3):
        raise ValueError(f"relax.nn.conv1d_transpose: data and weight must be 3-D, got {x.ndim} and {w.ndim} dims")
    if xv is None or wv is None:
        return TensorStructInfo(None, dtype, x.vdevice, 3)
    n, _, width = xv
    _, o, k = wv
    pad = a.padding[0] + a.padding[-1]
    out_w = (width - 1) * a.strides[0] - pad + a.dilation[0] * (k - 1) + a.output_padding[0] + 1
    return TensorStructInfo([n, o * a.groups, out_w], dtype, x.vdevice)


register("nn.conv1d_transpose", _infer_conv1d_transpose, arg_names=("data", "weight"))


def conv1d_transpose(data, weight, strides=1, padding=0, output_padding=0, dilation=1, groups: int = 1,
                     data_layout: str = "NCW", kernel_layout: str = "IOW", out_layout: str | None = None,
                     out_dtype=None) -> Call:
    """Transposed 1-D convolution (NCW data, IOW weight)."""
    pad = _one(padding)
    pad = pad + pad if len(pad) == 1 else pad
    attrs = Conv1DTransposeAttrs(_one(strides), pad, _one(output_padding), _one(dilation), int(groups),
                                 data_layout, kernel_layout, out_layout or data_layout,
                                 None if out_dtype is None else str(out_dtype))
    return make_call("nn.conv1d_transpose", [data, weight], attrs)


def _infer_nll_loss(call: Call, ctx) -> TensorStructInfo:
    pred = tensor_arg(call, 0)
    if call.attrs.reduction == "none":
        values = shape_values(pred)
        if values is None:
            return TensorStructInfo(None, pred.dtype, pred.vdevice, max(pred.ndim - 1, -1))
        return TensorStructInfo([values[0]] + list(values[2:]) if len(values) > 1 else [], pred.dtype, pred.vdevice)
    return TensorStructInfo([], pred.dtype, pred.vdevice)


register("nn.nll_loss", _infer_nll_loss, arg_names=("predictions", "targets", "weights"))


def nll_loss(predictions, targets, weights=None, reduction: str = "mean", ignore_index: int = -100) -> Call:
    """Negative log-likelihood of ``targets`` under log-probabilities ``predictions`` (N, C)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"relax.nn.nll_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    args = [predictions, targets] + ([weights] if weights is not None else [])
    return make_call("nn.nll_loss", args, NLLLossAttrs(reduction, int(ignore_index)))

"""``relax.nn`` loss operators: ``cross_entropy_with_logits`` (labels times log-probabilities,
summed, negated, averaged over the batch for 2-D inputs)."""

from __future__ import annotations

from ..._arith import as_int
from ...expr import Call
from ...struct_info import TensorStructInfo, shape_values
from .._infer import binary_dtype
from ..base import make_call, register, shape_str, tensor_arg

__all__ = ["cross_entropy_with_logits"]


def _infer_cross_entropy(call: Call, ctx) -> TensorStructInfo:
    pred, labels = tensor_arg(call, 0), tensor_arg(call, 1)
    for name, sinfo in (("predictions", pred), ("labels", labels)):
        if sinfo.ndim not in (-1, 1, 2):
            raise ValueError(f"relax.nn.cross_entropy_with_logits: {name} must be 1-D or 2-D, got {sinfo.ndim} dims")
    if pred.ndim != -1 and labels.ndim != -1 and pred.ndim != labels.ndim:
        raise ValueError(f"relax.nn.cross_entropy_with_logits: predictions and labels must have the same number "
                         f"of dims, got {pred.ndim} and {labels.ndim}")
    pv, lv = shape_values(pred), shape_values(labels)
    if pv is not None and lv is not None:
        for p, q in zip(pv, lv):
            if as_int(p) is not None and as_int(q) is not None and as_int(p) != as_int(q):
                raise ValueError(f"relax.nn.cross_entropy_with_logits: predictions shape {shape_str(pv)} and "
                                 f"labels shape {shape_str(lv)} differ")
    dtype = binary_dtype(call, pred.dtype, labels.dtype)
    return TensorStructInfo([], dtype, pred.vdevice)


register("nn.cross_entropy_with_logits", _infer_cross_entropy, arg_names=("predictions", "labels"))


def cross_entropy_with_logits(predictions, labels) -> Call:
    """``-sum(predictions * labels)``, divided by the batch size when the inputs are 2-D
    (``predictions`` are log-probabilities)."""
    return make_call("nn.cross_entropy_with_logits", [predictions, labels])

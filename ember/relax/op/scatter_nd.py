"""``relax.scatter_nd``: a copy of ``data`` with ``updates`` written (or combined) at the
index tuples in the last dimension of ``indices`` (ONNX ScatterND, TVM's ``R.scatter_nd``)."""

from __future__ import annotations

from ember.ir import node

from .._arith import as_int
from ..expr import Call
from ..struct_info import TensorStructInfo, shape_values
from .attrs import Attrs
from .base import make_call, register, shape_str, tensor_arg

__all__ = ["scatter_nd", "ScatterNDAttrs"]

_REDUCTIONS = ("update", "add", "mul", "max", "min")


@node
class ScatterNDAttrs(Attrs):
    reduction: str = "update"


def _infer_scatter_nd(call: Call, ctx) -> TensorStructInfo:
    data, idx, upd = tensor_arg(call, 0), tensor_arg(call, 1), tensor_arg(call, 2)
    if call.attrs.reduction not in _REDUCTIONS:
        raise ValueError(f"relax.scatter_nd: reduction must be one of {_REDUCTIONS}, got {call.attrs.reduction!r}")
    if idx.dtype is not None and not idx.dtype.is_integer:
        raise TypeError(f"relax.scatter_nd: indices must be an integer tensor, got dtype {idx.dtype}")
    if data.dtype is not None and upd.dtype is not None and data.dtype != upd.dtype:
        raise TypeError(f"relax.scatter_nd: updates dtype {upd.dtype} differs from data dtype {data.dtype}")
    dv, iv, uv = shape_values(data), shape_values(idx), shape_values(upd)
    if dv is not None and iv is not None and uv is not None:
        m = as_int(iv[-1]) if iv else None
        if m is not None:
            if m > len(dv):
                raise ValueError(f"relax.scatter_nd: indices {shape_str(iv)} hold tuples of length {m}, "
                                 f"but data {shape_str(dv)} has only {len(dv)} dims")
            want = len(iv) - 1 + len(dv) - m
            if len(uv) != want:
                raise ValueError(f"relax.scatter_nd: updates must have rank {want} (indices {shape_str(iv)}, "
                                 f"data {shape_str(dv)}), got updates {shape_str(uv)}")
    return TensorStructInfo(data.shape, data.dtype, data.vdevice, data.ndim)


register("scatter_nd", _infer_scatter_nd, arg_names=("data", "indices", "updates"))


def scatter_nd(data, indices, updates, reduction: str = "update") -> Call:
    """``data`` with ``updates`` scattered at ``indices`` (index tuples along its last dim);
    ``reduction`` combines them with what is there: "update", "add", "mul", "max", "min"."""
    return make_call("scatter_nd", [data, indices, updates], ScatterNDAttrs(str(reduction)))

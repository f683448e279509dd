"""Reductions whose ``axes`` arrive at run time (an input tensor, not a constant).

Which axes a kernel reduces must be fixed when it is compiled, so a run-time ``axes``
goes to a numpy-backed packed function (``ember.onnx.reduce``) called through
``call_pure_packed``; its result is ``match_cast`` to fresh symbolic dims and the rest of
the graph compiles as usual.  A built module needs this module imported in the process
that runs it (importing ``ember.relax.frontend.onnx`` does).
"""

from __future__ import annotations

import numpy as np

from ember import tir
from ember.runtime import register_func

from ... import op as R
from ...expr import PrimValue, StringImm
from ...struct_info import TensorStructInfo
from .common import dtype_of, ndim_of

__all__ = ["reduce_runtime_axes", "NAME"]

NAME = "ember.onnx.reduce"


def _log_sum_exp(x, axes, keepdims):
    m = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros([1] * x.ndim, x.dtype)
    m = np.where(np.isinf(m), 0, m)
    s = np.sum(np.exp(x - m), axis=axes, keepdims=True)
    out = np.log(s) + m
    return out if keepdims else np.squeeze(out, axis=axes)


REDUCERS = {
    "ReduceSum": lambda x, a, k: np.sum(x, axis=a, keepdims=k),
    "ReduceMean": lambda x, a, k: np.mean(x, axis=a, keepdims=k),
    "ReduceMax": lambda x, a, k: np.max(x, axis=a, keepdims=k, initial=_lowest(x)),
    "ReduceMin": lambda x, a, k: np.min(x, axis=a, keepdims=k, initial=_highest(x)),
    "ReduceProd": lambda x, a, k: np.prod(x, axis=a, keepdims=k),
    "ReduceL1": lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k),
    "ReduceL2": lambda x, a, k: np.sqrt(np.sum(x * x, axis=a, keepdims=k)),
    "ReduceSumSquare": lambda x, a, k: np.sum(x * x, axis=a, keepdims=k),
    "ReduceLogSum": lambda x, a, k: np.log(np.sum(x, axis=a, keepdims=k)),
    "ReduceLogSumExp": _log_sum_exp,
}


def _lowest(x):
    if x.dtype == np.bool_:
        return False
    return -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min


def _highest(x):
    if x.dtype == np.bool_:
        return True
    return np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).max


@register_func(NAME, override=True)
def reduce(op: str, x, axes, keepdims: int, noop_with_empty_axes: int):
    """ONNX ``op`` over the run-time ``axes`` of ``x`` (NDArrays in and out)."""
    from ember.runtime import ndarray

    data = x.numpy()
    keepdims, noop_with_empty_axes = int(_scalar(keepdims)), int(_scalar(noop_with_empty_axes))
    ax = tuple(int(a) % data.ndim for a in axes.numpy().reshape(-1)) if data.ndim else ()
    if not ax:
        if noop_with_empty_axes:
            return ndarray.array(np.ascontiguousarray(data))
        ax = tuple(range(data.ndim))
    with np.errstate(all="ignore"):
        out = np.asarray(REDUCERS[str(op)](data, ax, bool(keepdims))).astype(data.dtype)
    return ndarray.array(np.ascontiguousarray(out))


def _scalar(v):
    return v.numpy().item() if hasattr(v, "numpy") else v


def reduce_runtime_axes(ctx, op: str, x, axes, keepdims: bool, noop: bool):
    ndim = ndim_of(x)
    k = axes.struct_info.shape.values[0] if axes.struct_info.shape is not None else None
    k = int(k.value) if hasattr(k, "value") else None
    if keepdims or (noop and k == 0):
        rank = ndim
    elif k is None:
        raise ctx.error(f"{op} with run-time axes of unknown length and keepdims=0")
    else:
        rank = ndim - k if k else 0
    sinfo = TensorStructInfo(None, dtype_of(x), ndim=rank)
    call = R.call_pure_packed(NAME, StringImm(op), x, axes, PrimValue(int(keepdims)), PrimValue(int(noop)),
                              sinfo_args=sinfo)
    value = ctx.emit(call)
    dims = [tir.Var(f"reduced{i}", "int64") for i in range(rank)]
    return ctx.bb.match_cast(value, TensorStructInfo(dims, dtype_of(x)))

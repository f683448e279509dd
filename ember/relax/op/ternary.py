"""Ternary elementwise operator ``ewise_fma``: ``x1 * x2 + x3`` on three tensors of one
dtype and one shape (no broadcasting, as TVM)."""

from __future__ import annotations

from ember.arith import Analyzer

from ..expr import Call, ShapeExpr
from ..struct_info import TensorStructInfo
from ._infer import as_tensor_sinfo, tensor
from .base import make_call, register

__all__ = ["ewise_fma"]


def _infer_ewise_fma(call: Call, ctx) -> TensorStructInfo:
    infos = [as_tensor_sinfo(call, i) for i in range(3)]
    ndims = {t.ndim for t in infos if t.ndim != -1}
    if len(ndims) > 1:
        raise ValueError(f"relax.ewise_fma: the three operands must have the same ndim, got "
                         f"{[t.ndim for t in infos]}")
    ndim = ndims.pop() if ndims else -1
    dtypes = [t.dtype for t in infos]
    dtype = None
    if all(d is not None for d in dtypes):
        if len(set(dtypes)) != 1:
            raise TypeError(f"relax.ewise_fma: the three operands must have the same dtype, got "
                            f"{', '.join(str(d) for d in dtypes)}")
        dtype = dtypes[0]
    vdevice = next((t.vdevice for t in infos if t.vdevice is not None), None)
    values = [t.shape.values if isinstance(t.shape, ShapeExpr) else None for t in infos]
    if all(v is not None for v in values):
        analyzer = Analyzer()
        for dims in zip(*values, strict=True):
            if not all(analyzer.can_prove_equal(dims[0], d) for d in dims[1:]):
                raise ValueError(f"relax.ewise_fma: the three operands must have the same shape, "
                                 f"got dims {', '.join(str(d) for d in dims)}")
        return tensor(values[0], dtype, vdevice)
    first = infos[0].shape
    if first is not None and all(t.shape is first for t in infos):
        return TensorStructInfo(first, dtype, vdevice, ndim)
    return tensor(None, dtype, vdevice, ndim)


register("ewise_fma", _infer_ewise_fma, arg_names=("x1", "x2", "x3"))


def ewise_fma(x1, x2, x3) -> Call:
    """Elementwise fused multiply-add ``x1 * x2 + x3``."""
    return make_call("ewise_fma", [x1, x2, x3])

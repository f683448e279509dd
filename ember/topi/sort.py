"""Sorting as tensor expressions: ``argsort``, ``sort`` and ``topk`` along one axis.

Each element's rank is counted by comparison with every element of its row (stable:
equal values keep their order), and the output at rank ``r`` gathers the element of
rank ``r``.  This is O(n²) per row — plain TE, no extern sort — which suits the short
axes of graph models (top-k of logits, small sorts); long sorts want a library kernel.
"""

from __future__ import annotations

from ember import te
from ember.ir import DataType, const
from ember.tir import op as tir_op

from .utils import normalize_axis

__all__ = ["argsort", "sort", "topk"]


def _at(idx, axis: int, value) -> tuple:
    return tuple(idx[:axis]) + (value,) + tuple(idx[axis + 1:])


def _rank(x: te.Tensor, axis: int, descending: bool) -> te.Tensor:
    """Position of each element in its row's stable (ascending or descending) order."""
    j = te.reduce_axis((0, x.shape[axis]), name="j")

    def f(*i):
        xi, xj = x(*i), x(*_at(i, axis, j.var))
        ahead = (xj > xi) if descending else (xj < xi)
        tie = tir_op.logical_and(xj == xi, j.var < i[axis])
        one = tir_op.if_then_else(tir_op.logical_or(ahead, tie), const(1, "int64"), const(0, "int64"))
        return te.sum(one, axis=j)

    return te.compute(x.shape, f, name="T_rank")


def _gather_by_rank(x: te.Tensor, rank: te.Tensor, axis: int, length, values: bool, dtype, name: str):
    k = te.reduce_axis((0, x.shape[axis]), name="k")
    shape = _at(x.shape, axis, length)

    def f(*p):
        src = _at(p, axis, k.var)
        hit = rank(*src) == tir_op.cast(p[axis], "int64")
        picked = x(*src) if values else tir_op.cast(k.var, dtype)
        return te.sum(tir_op.if_then_else(hit, picked, const(0, picked.dtype)), axis=k)

    return te.compute(shape, f, name=name)


def argsort(data: te.Tensor, axis: int = -1, is_ascend: bool = True, dtype="float32") -> te.Tensor:
    """Indices that sort ``data`` along ``axis`` (stable)."""
    (axis,) = normalize_axis(axis, data.ndim)
    rank = _rank(data, axis, not is_ascend)
    return _gather_by_rank(data, rank, axis, data.shape[axis], False, DataType(dtype), "T_argsort")


def sort(data: te.Tensor, axis: int = -1, is_ascend: bool = True) -> te.Tensor:
    """``data`` sorted along ``axis``."""
    (axis,) = normalize_axis(axis, data.ndim)
    rank = _rank(data, axis, not is_ascend)
    return _gather_by_rank(data, rank, axis, data.shape[axis], True, data.dtype, "T_sort")


def topk(data: te.Tensor, k: int = 1, axis: int = -1, ret_type: str = "both", is_ascend: bool = False,
         dtype="int64"):
    """The ``k`` largest (or, with ``is_ascend``, smallest) values and/or their indices."""
    if ret_type not in ("both", "values", "indices"):
        raise ValueError(f"topi.topk: ret_type must be 'both', 'values' or 'indices', got {ret_type!r}")
    (axis,) = normalize_axis(axis, data.ndim)
    length = const(int(k), data.shape[axis].dtype)
    rank = _rank(data, axis, not is_ascend)
    values = _gather_by_rank(data, rank, axis, length, True, data.dtype, "T_topk_values")
    indices = _gather_by_rank(data, rank, axis, length, False, DataType(dtype), "T_topk_indices")
    return {"both": [values, indices], "values": values, "indices": indices}[ret_type]

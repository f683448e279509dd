"""softmax and log_softmax over one axis, in TVM's four steps: max, exp, sum, normalise."""

from __future__ import annotations

from ember import te
from ember.tir import op as tir_op

from ..utils import normalize_axis

__all__ = ["softmax", "log_softmax"]


def _split(x, axis):
    (axis,) = normalize_axis(axis, x.ndim)
    k = te.reduce_axis((0, x.shape[axis]), name="k")
    reduced = x.shape[:axis] + x.shape[axis + 1:]

    def full(idx):  # reduced-space indices with k inserted
        return idx[:axis] + (k.var,) + idx[axis:]

    def drop(idx):  # full-space indices without the axis
        return idx[:axis] + idx[axis + 1:]

    return axis, k, reduced, full, drop


def softmax(x, axis: int = -1) -> te.Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``."""
    axis, k, reduced, full, drop = _split(x, axis)
    max_elem = te.compute(reduced, lambda *i: te.max(x(*full(i)), axis=k), name="T_softmax_maxelem")
    exp = te.compute(x.shape, lambda *i: tir_op.exp(x(*i) - max_elem(*drop(i))), name="T_softmax_exp")
    k2 = te.reduce_axis((0, x.shape[axis]), name="k")
    expsum = te.compute(
        reduced, lambda *i: te.sum(exp(*(i[:axis] + (k2.var,) + i[axis:])), axis=k2), name="T_softmax_expsum"
    )
    return te.compute(x.shape, lambda *i: exp(*i) / expsum(*drop(i)), name="T_softmax_norm",
                      attrs={"axis": axis})


def log_softmax(x, axis: int = -1) -> te.Tensor:
    """``x - max - log(sum(exp(x - max)))`` along ``axis``."""
    axis, k, reduced, full, drop = _split(x, axis)
    max_elem = te.compute(reduced, lambda *i: te.max(x(*full(i)), axis=k), name="T_softmax_maxelem")
    k2 = te.reduce_axis((0, x.shape[axis]), name="k")
    expsum = te.compute(
        reduced,
        lambda *i: te.sum(tir_op.exp(x(*(i[:axis] + (k2.var,) + i[axis:])) - max_elem(*i)), axis=k2),
        name="T_softmax_expsum",
    )
    return te.compute(
        x.shape, lambda *i: x(*i) - max_elem(*drop(i)) - tir_op.log(expsum(*drop(i))), name="T_log_softmax"
    )

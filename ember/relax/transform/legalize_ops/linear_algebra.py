"""Legaliser of ``matmul`` (numpy semantics: 1-D operands promoted, batch dims
broadcast, optional ``out_dtype``) as one TE reduction."""

from __future__ import annotations

from ember import te
from ember.ir import const
from ember.tir import op as tir_op

from .common import Legalizer, emit_te, out_dtype, out_shape

__all__ = ["TABLE", "batch_matmul_broadcast"]


def _batch_index(batch: tuple, out_batch: tuple, shape: tuple) -> list:
    """Indices into an operand's batch dims (right-aligned): a dim of extent 1 that is
    broadcast (the output's is not 1) stays at 0, an index of the output's dtype, as TVM."""
    if not shape:
        return []
    tail = batch[len(batch) - len(shape):]
    out_tail = out_batch[len(out_batch) - len(shape):]

    def is_one(d):
        return getattr(d, "value", None) == 1

    return [const(0, i.dtype) if is_one(d) and not is_one(o) else i for i, o, d in zip(tail, out_tail, shape)]


def _cast(v, dtype: str):
    return v if str(v.dtype) == dtype else tir_op.cast(v, dtype)


def batch_matmul_broadcast(a: te.Tensor, b: te.Tensor, shape, dtype: str) -> te.Tensor:
    """``numpy.matmul(a, b)`` with output ``shape`` (as inferred) and accumulator ``dtype``."""
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    k = te.reduce_axis((0, a.shape[-1]), name="k")
    n_batch = len(shape) - (0 if a_vec else 1) - (0 if b_vec else 1)

    def f(*idx):
        batch, rest = idx[:n_batch], idx[n_batch:]
        out_batch = tuple(shape[:n_batch])
        a_idx = [k.var] if a_vec else _batch_index(batch, out_batch, a.shape[:-2]) + [rest[0], k.var]
        b_idx = [k.var] if b_vec else _batch_index(batch, out_batch, b.shape[:-2]) + [k.var, rest[-1]]
        return te.sum(_cast(a(*a_idx), dtype) * _cast(b(*b_idx), dtype), axis=k)

    return te.compute(tuple(shape), f, name="T_matmul")


def _matmul(bb, call):
    shape, dtype = out_shape(call), out_dtype(call)
    return emit_te(bb, call, lambda a, b: batch_matmul_broadcast(a, b, shape, dtype), *call.args)


TABLE: dict[str, Legalizer] = {"relax.matmul": _matmul}

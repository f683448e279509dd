"""Legalisers of gather_nd, scatter_elements, sort/argsort/topk, einsum, and two
markers: call_tir_with_grad (a call_tir whose gradient annotation is dropped) and
builtin.stop_lift_params (its argument itself)."""

from __future__ import annotations

from ember import topi

from ...op.call import call_tir
from .common import Legalizer, emit_te, out_dtype

__all__ = ["TABLE"]


def _gather_nd(bb, call):
    def f(x, i):  # Relax indexes with the last dim of ``indices``, topi with the first
        return topi.gather_nd(x, topi.transpose(i, [i.ndim - 1, *range(i.ndim - 1)]), call.attrs.batch_dims)

    return emit_te(bb, call, f, *call.args)


def _scatter_elements(bb, call):
    a = call.attrs
    return emit_te(bb, call, lambda x, i, u: topi.scatter_elements(x, i, u, a.axis, a.reduction), *call.args)


def _sort(bb, call):
    a = call.attrs
    return emit_te(bb, call, lambda x: topi.sort(x, a.axis, not a.descending), call.args[0])


def _argsort(bb, call):
    a = call.attrs
    dtype = out_dtype(call)
    return emit_te(bb, call, lambda x: topi.argsort(x, a.axis, not a.descending, dtype), call.args[0])


def _topk(bb, call):
    a = call.attrs
    dtype = "int32" if a.dtype is None else str(a.dtype)
    return emit_te(bb, call, lambda x: topi.topk(x, a.k, a.axis, a.ret_type, not a.largest, dtype), call.args[0])


def _einsum(bb, call):
    return emit_te(bb, call, lambda ops: topi.einsum(call.attrs.subscripts, *ops), call.args[0])


def _call_tir_with_grad(bb, call):
    return call_tir(call.args[0], call.args[1], call.sinfo_args[0],
                    tir_vars=call.args[2] if len(call.args) > 2 else None)


TABLE: dict[str, Legalizer] = {
    "relax.gather_nd": _gather_nd,
    "relax.scatter_elements": _scatter_elements,
    "relax.sort": _sort,
    "relax.argsort": _argsort,
    "relax.topk": _topk,
    "relax.einsum": _einsum,
    "relax.call_tir_with_grad": _call_tir_with_grad,
    "relax.builtin.stop_lift_params": lambda bb, call: call.args[0],
}

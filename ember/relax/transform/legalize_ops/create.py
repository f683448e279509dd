"""Legalisers of creation ops: full/zeros/ones(_like), arange, tril/triu.

``arange`` of constant bounds is a Relax constant (as TVM legalizes it).

A fill value that is a 0-d constant is folded into the kernel; a 0-d tensor variable is
read inside it (``value[()]``)."""

from __future__ import annotations

import numpy as np

from ember import te, topi
from ember.ir import FloatImm, IntImm, PrimExpr
from ember.tir import op as tir_op

from ...expr import PrimValue
from ...expr import const as relax_const
from .common import Legalizer, emit_te, out_dtype, out_shape, scalar_or_tensor

__all__ = ["TABLE"]


def _fill(shape, dtype: str, value) -> te.Tensor:
    if isinstance(value, te.Tensor):
        return te.compute(tuple(shape), lambda *i: tir_op.cast(value[()], dtype), name="T_full")
    return topi.full(shape, dtype, value)


def _full(bb, call):
    shape, dtype = out_shape(call), out_dtype(call)
    value = scalar_or_tensor(call.args[1])
    if isinstance(value, PrimExpr):
        return emit_te(bb, call, lambda: _fill(shape, dtype, value))
    return emit_te(bb, call, lambda v: _fill(shape, dtype, v), value)


def _constant(fill: int) -> Legalizer:
    def legalize(bb, call):
        shape, dtype = out_shape(call), out_dtype(call)
        return emit_te(bb, call, lambda: topi.full(shape, dtype, fill))

    return legalize


def _prim(arg):
    return arg.value if isinstance(arg, PrimValue) else arg


def _arange(bb, call):
    start, end, step = (_prim(a) for a in call.args)
    shape, dtype = out_shape(call), out_dtype(call)
    if all(isinstance(v, IntImm | FloatImm) for v in (start, end, step)):  # known now: a constant, as TVM
        return relax_const(np.arange(start.value, end.value, step.value).astype(dtype), dtype)

    def f():
        def value(i):
            return tir_op.cast(i, dtype) * tir_op.cast(step, dtype) + tir_op.cast(start, dtype)

        return te.compute(tuple(shape), value, name="T_arange")

    return emit_te(bb, call, f)


def _trilu(upper: bool) -> Legalizer:
    return lambda bb, call: emit_te(bb, call, lambda x, k: topi.trilu(x, k, upper), call.args[0], call.args[1])


TABLE: dict[str, Legalizer] = {
    "relax.full": _full,
    "relax.full_like": _full,
    "relax.zeros": _constant(0),
    "relax.ones": _constant(1),
    "relax.zeros_like": _constant(0),
    "relax.ones_like": _constant(1),
    "relax.arange": _arange,
    "relax.tril": _trilu(False),
    "relax.triu": _trilu(True),
}

"""Legaliser of ``ewise_fma``: a TE kernel ``x1 * x2 + x3``.

(``unique`` and ``nonzero``, whose output sizes depend on the data, have no kernel: their op
attribute ``FCallPacked`` makes LegalizeOps call the run-time functions ``relax.run.unique``
/ ``relax.run.nonzero`` registered by ``ember.relax.op.set_ops``, as TVM does.)"""

from __future__ import annotations

from ember import te

from .common import Legalizer, emit_te

__all__ = ["TABLE"]


def _fma(x1, x2, x3):
    return te.compute(x1.shape, lambda *i: x1(*i) * x2(*i) + x3(*i), name="T_ewise_fma")


def _ewise_fma(bb, call):
    return emit_te(bb, call, _fma, *call.args)


TABLE: dict[str, Legalizer] = {
    "relax.ewise_fma": _ewise_fma,
}

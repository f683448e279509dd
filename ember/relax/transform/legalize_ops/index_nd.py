"""Legaliser of ``relax.scatter_nd`` (topi.scatter_nd, same index layout)."""

from __future__ import annotations

from ember.topi.scatter_nd import scatter_nd

from .common import Legalizer, emit_te

__all__ = ["TABLE"]


def _scatter_nd(bb, call):
    mode = call.attrs.reduction
    return emit_te(bb, call, lambda x, i, u: scatter_nd(x, i, u, mode), *call.args)


TABLE: dict[str, Legalizer] = {"relax.scatter_nd": _scatter_nd}

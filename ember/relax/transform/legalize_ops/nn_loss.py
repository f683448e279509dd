"""Legaliser of ``relax.nn.cross_entropy_with_logits``: one TE sum of the products, negated,
divided by the batch size for 2-D inputs."""

from __future__ import annotations

from ember import te, tir

from .common import emit_te

__all__ = ["TABLE"]


def _cross_entropy(bb, call):
    def f(x, y):
        axes = [te.reduce_axis((0, d), name=f"k{i}") for i, d in enumerate(x.shape)]
        idx = [a.var for a in axes]
        total = te.compute((), lambda: te.sum(x(*idx) * y(*idx), axis=axes), name="cross_entropy_sum")
        if len(x.shape) == 2:
            return te.compute((), lambda: -total() / tir.Cast(x.dtype, x.shape[0]), name="cross_entropy")
        return te.compute((), lambda: -total(), name="cross_entropy")

    return emit_te(bb, call, f, *call.args)


TABLE = {"relax.nn.cross_entropy_with_logits": _cross_entropy}

"""``RMSNorm``: the row schedule of GeneralReduction, applied only to an RMS norm
(TVM's dlight ``gpu.RMSNorm``): a row reduction summing squares (``x * x``) and a last
block scaling by ``rsqrt`` of it, with no mean subtracted (that is a layer norm).  Listing it before GeneralReduction documents intent
and keeps other row kernels out of it; the schedule itself is GeneralReduction's.
"""

from __future__ import annotations

from ember.ir import Mul, Sub, structural_equal
from ember.target import Target
from ember.tir import Call, PrimFunc, post_order_visit
from ember.tir.schedule import Schedule

from ..analysis import root_blocks
from ..base import func_name
from .general_reduction import GeneralReduction
from .normalize import squeeze_intermediates


def _has(node, pred) -> bool:
    hit: list = []
    post_order_visit(node, lambda n: hit.append(n) if pred(n) else None)
    return bool(hit)


def _squares(node) -> bool:
    return isinstance(node, Mul) and structural_equal(node.a, node.b)


def _rsqrt(node) -> bool:
    return isinstance(node, Call) and getattr(node.op, "name", "") in ("tir.rsqrt", "tir.sqrt")


class RMSNorm(GeneralReduction):
    """GeneralReduction's schedule, for RMS norm kernels only."""

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        blocks = root_blocks(Schedule(squeeze_intermediates(func)))
        reductions = [b for b in blocks if b.is_reduction()]
        if not reductions or not any(_has(b.block.body, _squares) for b in reductions) or \
                not blocks or not _has(blocks[-1].block.body, _rsqrt) or \
                _has(blocks[-1].block.body, lambda n: isinstance(n, Sub)):
            self.decline(func_name(func), "not an RMS norm (a sum of squares scaled by its rsqrt, no mean subtracted)")
            return None
        return super().apply(func, target, tunable)

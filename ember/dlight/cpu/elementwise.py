"""``Elementwise``: schedule for functions made only of spatial (injective) blocks.

Spatial intermediates are inlined into their consumers; each remaining block's loops are
fused, split into whole vectors (a ragged tail gets a predicate), the outer chunk loop
runs in parallel when there is enough work and the inner lanes are vectorised when the
innermost iterator walks the output contiguously (a transpose stays scalar inside).
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule

from ..analysis import root_blocks
from ..base import ScheduleRule, func_name
from .normalize import normalize_for_rules
from .common import inline_spatial_producers, schedule_spatial


class Elementwise(ScheduleRule):
    """Fused, parallel, vectorised loops for elementwise / broadcast / injective functions."""

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        sch = Schedule(normalize_for_rules(func))
        blocks = root_blocks(sch)
        if not blocks or not all(b.is_spatial() and b.binds_one_to_one for b in blocks):
            self.decline(name, "not every block is spatial with one loop per iterator")
            return None
        inline_spatial_producers(sch, blocks[:-1], keep=())
        for info in root_blocks(sch):
            schedule_spatial(sch, info, target)
        return sch


Injective = Elementwise  # TVM's other name for the same rule

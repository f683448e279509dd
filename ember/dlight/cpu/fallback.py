"""``Fallback``: the last rule — run the outermost spatial loop of each block in parallel.

It applies to any block-structured function: for each root block whose outermost loop
drives only spatial iterators and has enough iterations, that loop becomes parallel.
Nothing else changes, so the result is always correct; it is just not fast.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule

from ..analysis import const_int, root_blocks
from ..base import ScheduleRule, func_name


class Fallback(ScheduleRule):
    """Parallel outermost spatial loop; applies to every block-structured function."""

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        sch = Schedule(func)
        blocks = root_blocks(sch)
        if not blocks:
            self.decline(func_name(func), "no blocks")
            return None
        for info in blocks:
            if not info.loops or not info.binds_one_to_one or info.kinds[0] != "S":
                continue
            extent = const_int(info.loop_extents[0])
            if target.num_cores > 1 and (extent is None or extent > 1):
                sch.parallel(info.loops[0])
        return sch

"""``PoolNCHWc``: max / average pooling over windows of channel-blocked data (``NCHW{b}c``).

Matched by shape: one reduction block "SSSSSRR" (n, C, y, x, c, ky, kx) writing the 5-D output
by its spatial iterators and reading one 5-D tensor whose last index is the lane ``c`` (no
weight: a depthwise convolution is ``DepthwiseConv2DNCHWc``'s).  The window loops move outside
the lane loop, so every window tap is one contiguous vector load and one vector max/add into
the output row::

    n·C·y (parallel)  x  ky kx (unrolled)  c (vectorised)

The padding block before it is inlined (its border test is the same for every lane, so the tap
stays one vector load under one branch); an average's division runs as an elementwise loop nest.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import BlockInfo, const_int, root_blocks
from ..base import ScheduleRule, func_name
from .common import lanes_for, schedule_spatial
from .normalize import normalize_for_rules

_OUT = tuple(frozenset({n}) for n in range(5))


def _is_blocked_pool(info: BlockInfo) -> bool:
    if info.kinds != "SSSSSRR" or not info.binds_one_to_one or len(info.writes) != 1:
        return False
    if info.writes[0].dims != _OUT or len(info.reads) != 1:
        return False
    r = info.reads[0]
    return len(r.dims) == 5 and r.dims[-1] == frozenset({4}) and r.dims[1] == frozenset({1})


class PoolNCHWc(ScheduleRule):
    """Parallel over (n, channel block, row); window taps outside the channel vector."""

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        sch = Schedule(normalize_for_rules(func))
        blocks = root_blocks(sch)
        pools = [b for b in blocks if _is_blocked_pool(b)]
        if len(pools) != 1 or not all(b.is_spatial() for b in blocks if b is not pools[0]):
            return None
        info = pools[0]
        extents = [const_int(e) for e in info.loop_extents]
        lanes = lanes_for(target, info.writes[0].buffer.dtype.bits)
        if any(e is None for e in extents) or extents[4] > lanes or extents[4] < 4:
            self.decline(name, f"symbolic extents or a channel block of {extents[4]} for {lanes} lanes")
            return None
        data = info.reads[0].buffer
        for b in blocks:  # the padding read in place (a border test per tap, the same for every lane)
            if b is not info and b.writes and b.writes[0].buffer is data:
                try:
                    sch.compute_inline(b.rv)
                except ScheduleError:
                    pass
        blocks = root_blocks(sch)
        info = next(b for b in blocks if b.name == info.name)
        n, c, y, x, ci, ry, rx = info.loops
        sch.reorder(n, c, y, x, ry, rx, ci)
        outer = sch.fuse(n, c, y)
        init = sch.decompose_reduction(info.rv, ry)
        sch.vectorize(sch.get_loops(init)[-1])
        sch.unroll(ry)
        sch.unroll(rx)
        sch.vectorize(ci)
        sch.parallel(outer)
        apart = {b.name for b in blocks if b is not info}  # padding, an average's division
        for b in root_blocks(sch):
            if b.name in apart:
                schedule_spatial(sch, b, target)
        return sch

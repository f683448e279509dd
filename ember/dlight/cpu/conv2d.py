"""``Conv2D``: direct NCHW convolution with a register tile of output channels × a row segment.

Matched by shape (no names): a reduction block "SSSSRRR" (n, f, y, x, rc, ry, rx) writing a
4-D output indexed by the four spatial iterators in order, where one operand's index mixes a
spatial with a reduction iterator (the sliding window).  The padding block before it is
scheduled as an elementwise loop; a bias / relu epilogue after it is inlined into the
accumulator's write-back.  Loop nest::

    n·f_0·y (parallel)  x_0
      rc ry rx
        f_1 (unrolled, ≤ 16 channels) · x_1_0 (unrolled) · x_1_1 (vectorised along x)

The ``f_1 × x_1`` accumulators live in a ``local`` tile compacted into registers.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import BlockInfo, const_int, root_blocks
from ..base import ScheduleRule, func_name
from .normalize import normalize_for_rules
from .common import lanes_for, schedule_spatial


def _is_conv(info: BlockInfo) -> bool:
    if info.kinds != "SSSSRRR" or not info.binds_one_to_one or len(info.writes) != 1:
        return False
    if info.writes[0].dims != tuple(frozenset({n}) for n in range(4)):
        return False
    return any(any(len(d) > 1 for d in r.dims) for r in info.reads)


def _pick(extent: int | None, choices: tuple, default: int) -> int:
    for c in choices:
        if extent is not None and extent % c == 0:
            return c
    return default


class Conv2D(ScheduleRule):
    """Parallel over (n, output-channel block, row), vectorised along the output row."""

    contract_fma = True

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        sch = Schedule(normalize_for_rules(func))
        blocks = root_blocks(sch)
        convs = [n for n, b in enumerate(blocks) if _is_conv(b)]
        if len(convs) != 1:
            self.decline(name, f"{len(convs)} NCHW convolution blocks (want 1)")
            return None
        pos = convs[0]
        if not all(b.is_spatial() for n, b in enumerate(blocks) if n != pos):
            self.decline(name, "another reduction shares the function")
            return None
        info = blocks[pos]
        lanes = lanes_for(target, info.writes[0].buffer.dtype.bits)
        n, f, y, x, rc, ry, rx = info.loops
        xr = _pick(const_int(info.loop_extents[3]), (2 * lanes, lanes, lanes // 2), lanes)
        # about 16 vector accumulators: more channels when the row segment is one vector
        fr = _pick(const_int(info.loop_extents[1]), (16, 8, 4, 2) if xr <= lanes else (8, 4, 2), 1)
        f_0, f_1 = sch.split(f, factors=[None, fr])
        x_0, x_1 = sch.split(x, factors=[None, xr])
        sch.reorder(n, f_0, y, x_0, rc, ry, rx, f_1, x_1)
        outer = sch.fuse(n, f_0, y)
        acc = sch.cache_write(info.rv, 0, "local")
        sch.reverse_compute_at(acc, x_0)
        epilogue = [b.rv for b in blocks[pos + 1:]]
        for rv in epilogue[:-1]:
            sch.compute_inline(rv)
        apart = [b.name for b in blocks[:pos]]  # the padding, scheduled as elementwise
        if epilogue:
            try:
                sch.reverse_compute_inline(epilogue[-1])
            except ScheduleError as err:
                self.decline(name, f"epilogue kept apart: {str(err).splitlines()[0]}")
                apart.append(blocks[-1].name)
        sch.decompose_reduction(info.rv, rc)
        vec = min(lanes, xr)
        x_1_0, x_1_1 = sch.split(x_1, factors=[None, vec])
        sch.unroll(f_1)
        sch.unroll(x_1_0)
        sch.vectorize(x_1_1)
        sch.parallel(outer)
        acc_loops = sch.get_loops(acc)
        sch.vectorize(acc_loops[-1])
        for b in root_blocks(sch):
            if b.name in apart:
                schedule_spatial(sch, b, target)
        return sch

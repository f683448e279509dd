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
from ember.tir.schedule import Schedule

from ..analysis import BlockInfo, const_int, root_blocks
from ..base import ScheduleRule, func_name
from .normalize import normalize_for_rules
from .common import lanes_for, schedule_spatial, split_tile
from .conv2d_packed import inline_epilogue


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


def _row_tile(width: int | None, lanes: int) -> tuple[int, int]:
    """(pixels per register tile, vector width): whole vectors when the row allows it, else
    the widest divisor of the row up to two vectors (7, 14, 28 …: no ragged tail)."""
    if width is None:
        return lanes, lanes
    for xr in (2 * lanes, lanes):
        if width % xr == 0:
            return xr, lanes
    for d in range(min(width, 2 * lanes), 3, -1):
        if width % d == 0:
            if d <= lanes:
                return d, d
            if d % 2 == 0:
                return d, d // 2
    return lanes, lanes


def _rows_per_tile(height: int | None, width: int | None, lanes: int) -> int:
    """Whole output rows per register tile of a fused 1x1 convolution (the tile must not
    cut a row: the write-back covers whole rows), or 0 when rows are too wide."""
    if height is None or width is None or width > 2 * lanes:
        return 0
    best = 0
    for k in range(1, 2 * lanes // width + 1):
        xr = k * width
        if height % k == 0 and (xr <= lanes or (xr % 2 == 0 and xr // 2 <= lanes)):
            best = k
    return best


def _is_pointwise(info: BlockInfo, extents: list) -> bool:
    """A 1x1 kernel at stride 1 without padding: the input plane has the output's shape."""
    if extents[5] != 1 or extents[6] != 1:
        return False
    out = info.writes[0].buffer.shape
    data = [r for r in info.reads if any(len(d) > 1 for d in r.dims)]
    return len(data) == 1 and [const_int(e) for e in data[0].buffer.shape[-2:]] == [const_int(e) for e in out[-2:]]


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
        extents = [const_int(e) for e in info.loop_extents]
        rows = _is_pointwise(info, extents) and _rows_per_tile(extents[2], extents[3], lanes)
        pointwise = bool(rows)
        if pointwise:  # 1x1, stride 1, narrow rows: a tile of whole rows is one contiguous run
            x = sch.fuse(y, x)
            xr = rows * extents[3]
            vec = xr if xr <= lanes else xr // 2
        else:
            xr, vec = _row_tile(extents[3], lanes)
        # about 16 vector accumulators: more channels when the row segment is one vector
        fr = _pick(extents[1], (16, 8, 4, 2) if xr <= lanes else (8, 4, 2), 1)
        f_0, f_1 = split_tile(sch, f, [None, fr], tunable, 16)
        x_0, x_1 = split_tile(sch, x, [None, xr], tunable, 2 * lanes)
        if pointwise:
            sch.reorder(n, f_0, x_0, rc, ry, rx, f_1, x_1)
            outer = sch.fuse(n, f_0)
            tile = x_0
        else:
            sch.reorder(n, f_0, y, x_0, rc, ry, rx, f_1, x_1)
            outer = sch.fuse(n, f_0, y)
            tile = x_0
        acc = sch.cache_write(info.rv, 0, "local")
        sch.reverse_compute_at(acc, tile)
        apart = [b.name for b in blocks[:pos]]  # the padding, scheduled as elementwise
        apart += inline_epilogue(self, sch, name, blocks, pos)
        sch.decompose_reduction(info.rv, rc)
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

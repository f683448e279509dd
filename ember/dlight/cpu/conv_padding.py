"""The padded copy a convolution reads: what the conv rules do with it when they keep it.

A convolution kernel after FuseTIR often starts with a chain of spatial blocks feeding its
padding copy — for a network's first layer the ``NCHW → NCHW1c`` layout transform of the
model input, then the padding.  Left as separate loop nests, each is a full pass over the
image with its own temporary buffer.  ``inline_into_padding`` inlines every spatial block
whose only consumer is the padding copy into it (each element is read once by the copy, so
nothing is recomputed); ``schedule_padding_copy`` schedules the copy of data with one
channel per block (``NCHW1c``), whose unit lane dimension makes the elementwise schedule
fuse the whole image into one loop with a division per element: here rows run in parallel
and each row is a plain loop.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import BlockInfo, const_int, root_blocks
from .common import PARALLEL_MIN, schedule_spatial


def padding_block(blocks: list[BlockInfo], pos: int) -> BlockInfo | None:
    """The spatial block before ``blocks[pos]`` (the convolution) writing its windowed data."""
    data = {r.buffer for r in blocks[pos].reads if len(r.dims) >= 4 and any(len(d) > 1 for d in r.dims)}
    found = [b for b in blocks[:pos] if b.writes and b.writes[0].buffer in data and b.is_spatial()]
    return found[0] if len(found) == 1 else None


def inline_into_padding(sch: Schedule, blocks: list[BlockInfo], pos: int) -> tuple[list, int]:
    """Inline the spatial blocks that feed only the padding copy of ``blocks[pos]``'s data
    into that copy; returns the root blocks and the convolution's position after."""
    pad = padding_block(blocks, pos)
    if pad is None:
        return blocks, pos
    conv_name = blocks[pos].name
    changed = True
    while changed:
        changed = False
        for b in blocks:
            if b.name in (pad.name, conv_name) or not b.is_spatial():
                continue
            consumers = sch.get_consumers(b.rv)
            if len(consumers) != 1 or sch.get(consumers[0]).name_hint != pad.name:
                continue
            try:
                sch.compute_inline(b.rv)
            except ScheduleError:
                continue
            blocks = root_blocks(sch)
            changed = True
            break
    return blocks, next(n for n, b in enumerate(blocks) if b.name == conv_name)


def has_unit_lanes(info: BlockInfo) -> bool:
    """Whether the block writes a channel-blocked buffer with one channel per block."""
    shape = info.writes[0].buffer.shape if info.writes else ()
    return len(shape) == 5 and const_int(shape[-1]) == 1 and len(info.loops) == 5


def schedule_padding_copy(sch: Schedule, info: BlockInfo, target: Target) -> None:
    """Schedule a padding copy: ``NCHW1c`` data as parallel rows of plain loops (no division
    per element); anything else as an elementwise loop nest."""
    if not has_unit_lanes(info):
        schedule_spatial(sch, info, target)
        return
    n, c, y, x, lane = sch.get_loops(info.rv)
    rows = sch.fuse(n, c, y)
    sch.fuse(x, lane)
    extents = [const_int(e) for e in info.loop_extents]
    total = None if None in extents else extents[0] * extents[1] * extents[2] * extents[3]
    if target.num_cores > 1 and (total is None or total >= PARALLEL_MIN):
        sch.parallel(rows)

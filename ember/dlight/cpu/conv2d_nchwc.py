"""Rules for convolutions on channel-blocked activations (``topi.nn.conv2d_nchwc``: data
``NCHW{b}c``, weight ``OIHW{o}o``, output ``NCHW{o}c``), where the output block is one vector
register of channels (or half of one, as NCHW8c on AVX-512).

``Conv2DNCHWc`` matches a reduction block "SSSSSRRRR" (n, F, y, x, f, C, ky, kx, c) writing
the 5-D output by its spatial iterators, reading a 5-D weight whose last index is ``f``.  A
register tile of ``FR`` output blocks × ``XR`` output pixels takes, for every input channel,
one FMA per pair: ``FR`` contiguous weight vectors, ``XR`` broadcast input scalars (the
pixel's channel ``c``, contiguous from one ``c`` to the next).  Loop nest::

    n·F_0·y (parallel)  x_0
      C ky kx c
        x_1 (unrolled, XR) · F_1 (unrolled, FR) · f (vectorised)

The accumulators are a ``local`` tile ``[F_1][x_1][f]``; its write-back stores every pixel's
block of channels as one contiguous vector — the layout the next convolution reads — with
the epilogue (bias, ReLU, residual add) inlined.

``DepthwiseConv2DNCHWc`` matches "SSSSSRR" (n, F, y, x, f, ky, kx) reading the data at
channel block ``F`` and lane ``f``: every window tap is one contiguous vector load times one
weight vector, whatever the stride.  Loop nest ``n·F·y (parallel), x_0, ky, kx (unrolled),
x_1 (unrolled), f (vectorised)``.  Both leave a padding block before them as an elementwise
loop nest.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import BlockInfo, const_int, root_blocks
from ..base import ScheduleRule, func_name
from .common import finish_conv_tile, lanes_for, split_tile
from .conv2d_packed import _tile
from .conv_padding import inline_into_padding, padding_block, schedule_padding_copy
from .normalize import normalize_for_rules

_OUT = tuple(frozenset({n}) for n in range(5))


def _matches(info: BlockInfo, depthwise: bool) -> bool:
    if info.kinds != ("SSSSSRR" if depthwise else "SSSSSRRRR") or not info.binds_one_to_one:
        return False
    if len(info.writes) != 1 or info.writes[0].dims != _OUT:
        return False
    if not any(len(r.dims) == 5 and r.dims[0] == frozenset({1}) and r.dims[-1] == frozenset({4})
               and len(r.dims[2]) == 1 for r in info.reads):
        return False  # the weight: [F, c, ky, kx, f]
    lane = frozenset({4} if depthwise else {8})
    return any(len(r.dims) == 5 and r.dims[-1] == lane and len(r.dims[2]) > 1 for r in info.reads)


class _BlockedConvRule(ScheduleRule):
    depthwise = False
    contract_fma = True
    # read the padding in place (a border test per tap) rather than from a padded copy made per
    # call: a depthwise tap is a whole vector load, so its test is cheap (0.3-0.5x the time);
    # a dense conv tests every broadcast scalar, and lost (ResNet-50 1.12x; see RESULTS.md)
    pad_in_place = False
    # with a padded copy: the spatial blocks feeding only that copy (a first layer's NCHW1c
    # layout transform) inlined into it, one pass over the image instead of one per block
    inline_into_padding = True

    def _find(self, sch: Schedule, name: str):
        blocks = root_blocks(sch)
        convs = [(n, b) for n, b in enumerate(blocks) if _matches(b, self.depthwise)]
        if len(convs) != 1:
            return None
        pos, info = convs[0]
        if not all(b.is_spatial() for n, b in enumerate(blocks) if n != pos):
            self.decline(name, "another reduction shares the function")
            return None
        return blocks, pos, info

    def _common(self, name: str, info: BlockInfo, target: Target):
        extents = [const_int(e) for e in info.loop_extents]
        if any(e is None for e in extents):
            self.decline(name, "symbolic extents")
            return None
        lanes = lanes_for(target, info.writes[0].buffer.dtype.bits)
        vec = extents[4]  # one register, or half of one (24 or 40 channels in blocks of 8)
        if vec not in (lanes, lanes // 2) or vec < 4:
            self.decline(name, f"channel block {vec} is not one or half a register ({lanes} lanes)")
            return None
        registers = 32 if target.vector_width_bits >= 512 else 16
        return extents, vec, registers


    def _prepare(self, func: PrimFunc, target: Target):
        """(schedule, blocks, conv position, its info, extents, lanes, registers) of the
        normalised ``func``, or None (with the reason logged) when the rule does not apply."""
        name = func_name(func)
        sch = Schedule(normalize_for_rules(func))
        found = self._find(sch, name)
        if found is None:
            return None
        blocks, pos, info = found
        common = self._common(name, info, target)
        if common is None:
            return None
        if self.pad_in_place:
            blocks, pos, info = _inline_padding(sch, blocks, pos, info)
        elif self.inline_into_padding:
            blocks, pos = inline_into_padding(sch, blocks, pos)
            info = blocks[pos]
        return (sch, blocks, pos, info, *common)


class Conv2DNCHWc(_BlockedConvRule):
    """Parallel over (n, output block group, row); FMA tile of channel blocks × pixels."""

    # a window conv (3x3, ...) with a long reduction takes the widest tile whose accumulators
    # and weight vectors fit the registers, its broadcast pixels not counted (2x14 instead of 4x4
    # at 56 and 28 pixels): 0.86-0.93x the time of ResNet-50's 3x3 layers (RESULTS.md, round 5)
    wide_window_tiles = True
    # ... of at most this many pixels, with the window unrolled (``unroll_window``) and, as the
    # tile has fewer than ``channels_outside_window`` pixels, each block's channels outside the
    # window: 2x7 instead of 2x14 at 56, 28 and 14 pixels takes 0.92-0.94x the time of
    # ResNet-50's 3x3 layers, at 1 and 2 threads (RESULTS.md, round 6)
    window_tile_pixels = 7
    # a window conv (3x3, ...) with a long reduction whose register tile has fewer pixels than
    # this (each weight vector feeds few FMAs: short rows, 7x7) reduces (rco, rci, ry, rx), reading
    # each block's KH*KW*16o weight chunk in order as the weights (O/16, C, KH, KW, 16o) lie, which
    # matters as a model reads them cold; otherwise (rco, ry, rx, rci), whose channel strides
    # KH*KW*16 floats through the weights but reads each input pixel's channels in order (1.3-1.6x
    # faster at 14-pixel tiles).  0: never, 99: every such conv.  RESULTS.md, round 5 (H8)
    channels_outside_window = 8
    # a window conv's window loops (ry_1 = kh, rx_1 = kw) unrolled, as MetaSchedule's fastest
    # 3x3 tiles at 2 threads have them; False: not unrolled
    unroll_window = True
    # how the threads share the work: the parallel loop is fuse(n, y, f_0), rows outermost (each
    # thread reads the input rows it or the layer before wrote, and all the weights), when the
    # input's pixels times this are at least the weights per input channel (F*16o*KH*KW);
    # otherwise fuse(n, f_0, y), each thread half the output channels (and half the weights).
    # 1 (with DepthwiseConv2DNCHWc's): MobileNetV2 at 2 threads 0.95-0.97x the CPU time of 0
    # (rows the layer before wrote stay in the core's cache), ResNet-50 / SqueezeNet / Inception
    # 0.94-1.01x; with the codegen's own-segment claims, quiet wall time MobileNetV2 0.87x,
    # ResNet-50 0.96-0.98x (RESULTS.md, issue 10 round 8); 0: channels outermost everywhere
    rows_outside_channels = 1.0

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        prepared = self._prepare(func, target)
        if prepared is None:
            return None
        sch, blocks, pos, info, extents, vec, registers = prepared
        short = extents[5] * extents[6] * extents[7] * extents[8] < 64
        wide = self.wide_window_tiles and not short and extents[6] * extents[7] > 1
        fr, xr = _tile(extents[1] * vec, extents[3], vec, registers, ragged=short, broadcast_operands=wide,
                       max_pixels=self.window_tile_pixels if wide else None)
        n, f, y, x, fi, rco, ry, rx, rci = info.loops
        f_0, f_1 = split_tile(sch, f, [None, fr], tunable, 4)
        x_0, x_1 = split_tile(sch, x, [None, xr], tunable, (registers - 3) // 2)
        # the reduction's order and unrolling, as tiles whose unit parts are no-ops: the window
        # (ry_1, rx_1 unrolled) and the block's channels (rci_0 outside the window), as tuning
        # may choose per layer; the rule's choice is [kh, 1], [kw, 1], [1, c]: nothing unrolled,
        # every channel of the block inside the window ([c, 1], outside, for short rows)
        window = self.unroll_window and not short
        ry_0, ry_1 = split_tile(sch, ry, [None, extents[6] if window else 1], tunable, extents[6])
        rx_0, rx_1 = split_tile(sch, rx, [None, extents[7] if window else 1], tunable, extents[7])
        # not a short reduction (a first layer's few channels: tiny weights, the input dominates)
        outside = not short and extents[6] * extents[7] > 1 and xr < self.channels_outside_window
        rci_0, rci_1 = split_tile(sch, rci, [None, 1 if outside else extents[8]], tunable, extents[8])
        rows = _input_pixels(info) * self.rows_outside_channels >= extents[1] * vec * extents[6] * extents[7]
        parallel = (n, y, f_0) if rows else (n, f_0, y)
        sch.reorder(*parallel, x_0, rco, rci_0, ry_0, rx_0, ry_1, rx_1, rci_1, x_1, f_1, fi)
        outer = sch.fuse(*parallel)
        acc = sch.cache_write(info.rv, 0, "local")
        sch.reverse_compute_at(acc, x_0)
        sch.unroll(ry_1)
        sch.unroll(rx_1)
        sch.unroll(x_1)
        sch.unroll(f_1)
        sch.vectorize(fi)
        pad = padding_block(blocks, pos) if self.inline_into_padding else None
        finish_conv_tile(self, sch, name, blocks, pos, info.rv, acc, rco, outer, target, _write_back,
                         before=[b.name for b in blocks[:pos] if pad is None or b.name != pad.name])
        if pad is not None:
            pad = next(b for b in root_blocks(sch) if b.name == pad.name)
            if rows and len(pad.loops) == 5:  # the copy's rows shared out as the conv's
                pn, pc, py, px, pl = sch.get_loops(pad.rv)
                sch.reorder(pn, py, pc, px, pl)
            schedule_padding_copy(sch, pad, target)
        return sch


class DepthwiseConv2DNCHWc(_BlockedConvRule):
    """Parallel over (n, channel block, row); a tile of pixels × one channel vector."""

    depthwise = True
    pad_in_place = True
    # how the threads share the work, as in Conv2DNCHWc: rows outermost, fuse(n, y, f), when the
    # input's pixels times this are at least the weights per channel block (16c*KH*KW), so a
    # thread reads the rows it (or the layer before, split the same way) wrote; otherwise
    # fuse(n, f, y), each thread its channel blocks
    rows_outside_channels = 1.0

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        prepared = self._prepare(func, target)
        if prepared is None:
            return None
        sch, blocks, pos, info, extents, vec, registers = prepared
        _, xr = _tile(vec, extents[3], vec, registers)
        n, f, y, x, fi, ry, rx = info.loops
        x_0, x_1 = split_tile(sch, x, [None, xr], tunable, registers - 3)
        rows = _input_pixels(info) * self.rows_outside_channels >= vec * extents[5] * extents[6]
        parallel = (n, y, f) if rows else (n, f, y)
        sch.reorder(*parallel, x_0, ry, rx, x_1, fi)
        outer = sch.fuse(*parallel)
        acc = sch.cache_write(info.rv, 0, "local")
        sch.reverse_compute_at(acc, x_0)
        sch.unroll(ry)
        sch.unroll(rx)
        sch.unroll(x_1)
        sch.vectorize(fi)
        finish_conv_tile(self, sch, name, blocks, pos, info.rv, acc, ry, outer, target, _write_back,
                         before=[b.name for b in blocks[:pos]])
        return sch


def _input_pixels(info: BlockInfo) -> int:
    """Pixels per channel of the convolution's data (its windowed 5-D read)."""
    data = next(r for r in info.reads if len(r.dims) == 5 and len(r.dims[2]) > 1)
    return (const_int(data.buffer.shape[2]) or 0) * (const_int(data.buffer.shape[3]) or 0)


def _inline_padding(sch: Schedule, blocks: list, pos: int, info: BlockInfo):
    """Inline the padding block writing the convolution's data into its reads (a border test
    per tap instead of a padded copy per call); the root blocks, position and info after."""
    data = {r.buffer for r in info.reads}
    index = {iv.var.dtype for iv in sch.get(info.rv).iter_vars}
    done = False
    for b in blocks[:pos]:
        if b.writes and b.writes[0].buffer in data:
            if {iv.var.dtype for iv in sch.get(b.rv).iter_vars} != index:
                continue  # int32 padding indices under int64 taps: the inlined test would mix them
            try:
                sch.compute_inline(b.rv)
                done = True
            except ScheduleError:
                pass
    if not done:
        return blocks, pos, info
    blocks = root_blocks(sch)
    pos = next(n for n, b in enumerate(blocks) if b.name == info.name)
    return blocks, pos, blocks[pos]


def _write_back(sch: Schedule, acc) -> None:
    """The tile's write-back (and epilogue): every pixel's channel block one vector store."""
    # loops: the fused parallel one, x_0, then the tile's own (unit extents dropped)
    *tile, lanes = [lp for lp in sch.get_loops(acc)[2:] if const_int(sch.get(lp).extent) != 1]
    for lp in tile:
        sch.unroll(lp)
    sch.vectorize(lanes)

"""``DepthwiseConv2DPacked``: depthwise NCHW convolution vectorised over channels.

Matched by shape: a reduction block "SSSSRRR" (n, f, y, x, rc, ry, rx; ``rc`` of extent 1)
reading ``pad[n, f, y·s + ry, x·s + rx]`` and a packed weight ``w[f // B, rc, ry, rx, f % B]``
(``relax.transform.PackConvWeights`` makes both), after a padding block.  Vectorising along
the output row would gather for strided windows, so the padding block writes its copy of
the input channel-blocked instead (``[n, c // V, y, x, c % V]``, V channels per register):
every window tap is then one contiguous vector load, times one weight vector, whatever the
stride.  Loop nest::

    n·f_0·y (parallel)  x_0
      rc ry rx
        x_1 (unrolled, XR pixels) · f_1 (vectorised, V channels)

The accumulators are a ``local`` tile ``[x_1][f_1]``; the epilogue (bias, ReLU6, residual)
is inlined into its write-back, which stores each pixel's channel vector with the output's
channel stride.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule

from ..analysis import const_int, root_blocks
from ..base import ScheduleRule, func_name
from .common import finish_conv_tile, lanes_for, split_tile
from .conv2d_packed import Conv2DPacked, _channel_blocked, _tile, packed_block
from .normalize import normalize_for_rules


class DepthwiseConv2DPacked(ScheduleRule):
    """Parallel over (n, channel vector, row); a tile of pixels × one channel vector."""

    contract_fma = True

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        sch = Schedule(normalize_for_rules(func))
        blocks = root_blocks(sch)
        convs = [(n, b) for n, b in enumerate(blocks) if packed_block(b, depthwise=True)]
        if len(convs) != 1:
            return None
        pos, info = convs[0]
        if not all(b.is_spatial() for n, b in enumerate(blocks) if n != pos):
            self.decline(name, "another reduction shares the function")
            return None
        data = next(r.buffer for r in info.reads if len(r.dims) == 4)
        pads = [b for b in blocks[:pos] if b.writes and b.writes[0].buffer is data]
        if len(pads) != 1:
            self.decline(name, "no padding block writes the convolution's input")
            return None
        block = packed_block(info, depthwise=True)
        extents = [const_int(e) for e in info.loop_extents]
        if any(e is None for e in extents) or extents[4] != 1:
            self.decline(name, "symbolic extents or more than one input channel per group")
            return None
        vec = min(lanes_for(target, info.writes[0].buffer.dtype.bits), block)
        if block % vec:
            self.decline(name, f"channel block {block} is not a multiple of {vec} lanes")
            return None
        registers = 32 if target.vector_width_bits >= 512 else 16
        _, xr = _tile(vec, extents[3], vec, registers)
        sch.transform_layout(pads[0].rv, ("write", 0), _channel_blocked(vec), assume_injective_transform=True)
        n, f, y, x, rc, ry, rx = info.loops
        f_0, f_1 = sch.split(f, factors=[None, vec])
        x_0, x_1 = split_tile(sch, x, [None, xr], tunable, registers - 3)
        sch.reorder(n, f_0, y, x_0, rc, ry, rx, x_1, f_1)
        outer = sch.fuse(n, f_0, y)
        acc = sch.cache_write(info.rv, 0, "local")
        sch.reverse_compute_at(acc, x_0)
        sch.transform_layout(info.rv, ("write", 0), _channel_blocked(vec), assume_injective_transform=True)
        self._channel_blocked_copy(sch, pads[0].rv, vec)
        sch.unroll(ry)
        sch.unroll(rx)
        sch.unroll(x_1)
        sch.vectorize(f_1)
        finish_conv_tile(self, sch, name, blocks, pos, info.rv, acc, rc, outer, target,
                         lambda s, a: Conv2DPacked._write_back(s, a, vec),
                         before=[b.name for b in blocks[:pos] if b.name != pads[0].name])
        return sch

    @staticmethod
    def _channel_blocked_copy(sch: Schedule, pad, vec: int) -> None:
        """The padding copy walks the channel-blocked layout it writes: parallel over
        (n, channel vector, row), one vector of channels per pixel (gathered from NCHW,
        stored whole; the border test is the same for every lane)."""
        n, c, y, x = sch.get_loops(pad)
        c_0, c_1 = sch.split(c, factors=[None, vec])
        sch.reorder(n, c_0, y, x, c_1)
        sch.vectorize(c_1)
        sch.parallel(sch.fuse(n, c_0, y))

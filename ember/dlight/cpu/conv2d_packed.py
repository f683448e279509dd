"""``Conv2DPacked``: NCHW convolution over a pre-packed weight, vectorised over output channels.

Matched by shape: a reduction block "SSSSRRR" (n, f, y, x, rc, ry, rx) writing a 4-D output
indexed by the spatial iterators in order, reading a 5-D weight ``w[f // B, rc, ry, rx, f % B]``
(``relax.transform.PackConvWeights`` makes it).  For each (rc, ry, rx) a register tile of
``FR`` vectors of output channels × ``XR`` output pixels takes one FMA per pair: the weight
vector is one contiguous load and each pixel one broadcast scalar, so strided windows cost
nothing extra (no gathers).  Loop nest::

    n·f_0·y (parallel)  x_0
      rc ry rx
        f_1 (unrolled, FR) · x_1 (unrolled, XR) · f_2 (vectorised, one register of channels)

The accumulators live in a ``local`` tile laid out ``[f_1][x_1][f_2]`` (whole vectors); the
padding block before the convolution is scheduled as an elementwise loop, and the epilogue
(batch-norm arithmetic, residual add, ReLU) is inlined into the tile's write-back.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir import const as tir_const
from ember.tir.schedule import Schedule

from ..analysis import BlockInfo, const_int, root_blocks
from ..base import ScheduleRule, func_name
from .common import finish_conv_tile, inline_epilogue, lanes_for, split_tile  # noqa: F401 - inline_epilogue: conv2d.py
from .normalize import normalize_for_rules


def packed_block(info: BlockInfo, depthwise: bool = False) -> int | None:
    """The weight's channel block ``B`` when ``info`` is a packed convolution (``depthwise``:
    a packed depthwise one, whose data channel is the output channel), else None."""
    if info.kinds != "SSSSRRR" or not info.binds_one_to_one or len(info.writes) != 1:
        return None
    if info.writes[0].dims != tuple(frozenset({n}) for n in range(4)):
        return None
    channel = frozenset({1} if depthwise else {4})
    if not any(len(r.dims) == 4 and r.dims[1] == channel and len(r.dims[2]) > 1 for r in info.reads):
        return None
    want = (frozenset({1}), frozenset({4}), frozenset({5}), frozenset({6}), frozenset({1}))
    for r in info.reads:
        if r.dims == want:
            return const_int(r.buffer.shape[-1])
    return None


def _channel_blocked(vec: int):
    """Index map ``(n, c, y, x) → (n, c // vec, y, x, c % vec)`` (int64 constants)."""
    from ember.tir.schedule.index_map import IndexMap

    v = tir_const(vec, "int64")
    return IndexMap.from_func(lambda a, b, c, d: (a, b // v, c, d, b % v), index_dtype="int64")


def _tile(out_channels: int, width: int, vec: int, registers: int, ragged: bool = False,
          broadcast_operands: bool = False, max_pixels: int | None = None) -> tuple[int, int]:
    """(FR vectors of channels, XR pixels), XR dividing the row: the most accumulators such
    that they, FR weight vectors and XR broadcast pixels fit the vector registers (LLVM
    keeps the pixels of an unrolled window column live), fewest loads per FMA among equals.
    ``ragged``: XR may also be 4 or 8 pixels not dividing the row (the last tile guarded),
    accumulators counted by the share of real pixels they hold.  ``broadcast_operands``: the
    pixels are not counted (each broadcast is an FMA's memory operand or one short-lived
    register), so a tile may hold more accumulators; XR stays within half the registers.
    ``max_pixels``: XR at most this, unless the row has no divisor near it (the capped XR at
    most half of it: SqueezeNet's 27 and 13 pixels would get 3- and 1-pixel tiles, 1.2x its
    time); then the tile without the cap."""
    best, best_key = (1, 1), (0, 0)
    for fr in (1, 2, 4):
        if out_channels % (fr * vec):
            continue
        for xr in range(1, width + 1):
            live = fr * xr + fr + (0 if broadcast_operands else xr)
            if (width % xr and not (ragged and xr in (4, 8))) or live > registers - 2:
                continue
            if broadcast_operands and xr > (registers - 3) // 2:  # a broadcast per FMA: loads bound
                continue
            if max_pixels is not None and xr > max_pixels:
                continue
            useful = fr * xr * width / (-(-width // xr) * xr)  # accumulators doing real work
            key = (round(useful, 3), -(fr + xr))
            if key > best_key:
                best, best_key = (fr, xr), key
    if max_pixels is not None and 2 * best[1] <= max_pixels:
        return _tile(out_channels, width, vec, registers, ragged, broadcast_operands)
    return best


_SHORT_REDUCTION = 64


class Conv2DPacked(ScheduleRule):
    """Parallel over (n, channel block, row); FMA tile of channel vectors × pixels."""

    contract_fma = True

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        sch = Schedule(normalize_for_rules(func))
        blocks = root_blocks(sch)
        convs = [(n, b) for n, b in enumerate(blocks) if packed_block(b)]
        if len(convs) != 1:
            return None
        pos, info = convs[0]
        if not all(b.is_spatial() for n, b in enumerate(blocks) if n != pos):
            self.decline(name, "another reduction shares the function")
            return None
        block = packed_block(info)
        extents = [const_int(e) for e in info.loop_extents]
        if any(e is None for e in extents):
            self.decline(name, "symbolic extents")
            return None
        lanes = lanes_for(target, info.writes[0].buffer.dtype.bits)
        vec = min(lanes, block)
        if block % vec:
            self.decline(name, f"channel block {block} is not a multiple of {vec} lanes")
            return None
        registers = 32 if target.vector_width_bits >= 512 else 16
        # a short reduction (few input channels, as a network's first layer) spends its time in
        # the write-back, which wants whole registers of pixels: a guarded last tile is cheaper
        short = extents[4] * extents[5] * extents[6] < _SHORT_REDUCTION
        fr, xr = _tile(extents[1], extents[3], vec, registers, ragged=short)
        n, f, y, x, rc, ry, rx = info.loops
        f_0, f_1, f_2 = split_tile(sch, f, [None, fr, vec], tunable, vec)
        x_0, x_1 = split_tile(sch, x, [None, xr], tunable, (registers - 3) // 2)
        sch.reorder(n, f_0, y, x_0, rc, ry, rx, x_1, f_1, f_2)
        outer = sch.fuse(n, f_0, y)
        acc = sch.cache_write(info.rv, 0, "local")
        sch.reverse_compute_at(acc, x_0)
        sch.transform_layout(info.rv, ("write", 0), _channel_blocked(vec), assume_injective_transform=True)
        sch.unroll(f_1)
        sch.unroll(x_1)
        sch.vectorize(f_2)
        finish_conv_tile(self, sch, name, blocks, pos, info.rv, acc, rc, outer, target,
                         lambda s, a: self._write_back(s, a, vec), before=[b.name for b in blocks[:pos]])
        return sch

    @staticmethod
    def _write_back(sch: Schedule, acc, vec: int) -> None:
        """The tile's write-back (and epilogue).  When the pixel tile is one register wide,
        vectorised along the row: contiguous stores and residual loads, the tile transposed
        in registers.  Otherwise channels split into vectors, each pixel's channel vector read
        whole from the tile and stored with the output's channel stride."""
        loops = [lp for lp in sch.get_loops(acc)[2:] if const_int(sch.get(lp).extent) != 1]
        xr = const_int(sch.get(loops[1]).extent) if len(loops) > 1 else 1
        if xr in (4, 8, 16):  # a whole register of pixels: contiguous stores, residual loads
            sch.unroll(loops[0])
            sch.vectorize(loops[1])
            return
        w_0, w_1 = sch.split(loops[0], factors=[None, vec])
        if len(loops) > 1:
            sch.reorder(w_0, loops[1], w_1)
            sch.unroll(loops[1])
        sch.unroll(w_0)
        sch.vectorize(w_1)

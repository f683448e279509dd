"""``WinogradTransform``: schedules of the two Winograd transforms of
``ember.topi.nn.winograd`` (blocks annotated ``winograd``; the product between them is a
batched matmul that ``Matmul`` schedules).

Both transforms are memory-bound: one pass over their input, every coefficient folded.  Each is
a chain of stages (input: tile load → row combinations → column combinations; output: row
combinations → column combinations) computed per tile and channel block under one parallel
loop, the earlier stages into small local buffers.  All position loops are unrolled, so the
``Select`` chains that pick the coefficients fold into constants (and terms with a zero
coefficient drop out); the innermost loop is the channel block, vectorised::

    input:  t (parallel) · c_0   [tile: i · j | rows: i · ν | V: ξ · ν] (unrolled)  c_1 (vectorised)
    output: n·y_0·K_0 (parallel) · x_0   [rows: a · c | Y: y_1 · x_1] (unrolled)  k (vectorised)

The output transform's epilogue blocks (bias, ReLU, residual add that FuseOps fused after it)
take it inlined, so the tile is read once and the output written once.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import const_int, root_blocks
from ..base import ScheduleRule, func_name
from .common import inline_spatial_producers, lanes_for
from .normalize import normalize_for_rules

__all__ = ["WinogradTransform"]


def _has_winograd_block(func: PrimFunc) -> bool:
    from ember.tir import Block
    from ember.tir.functor import collect

    return bool(collect(func.body, lambda n: isinstance(n, Block) and "winograd" in n.annotations))


def _kind(sch: Schedule, info) -> str | None:
    return sch.get(info.rv).annotations.get("winograd")


class WinogradTransform(ScheduleRule):
    """Unrolled, vectorised, parallel loops for the Winograd input and output transforms."""

    # the output transform's parallel loop takes tile rows outside the channel blocks, so each
    # thread writes the rows the next layer's thread reads (convolutions put rows outermost too)
    rows_outside_channels = 1.0

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        if not _has_winograd_block(func):  # cheap test first: this rule is tried on every kernel
            return None
        name = func_name(func)
        sch = Schedule(normalize_for_rules(func))
        blocks = root_blocks(sch)
        kinds = [_kind(sch, b) for b in blocks]
        if not any(kinds):
            return None
        if not all(b.is_spatial() and b.binds_one_to_one for b in blocks):
            self.decline(name, "a block is not spatial")
            return None
        lanes = lanes_for(target, 32)
        if "input" in kinds:
            if sorted(kinds) != ["input", "input_rows", "input_tile"]:
                self.decline(name, "the input transform shares its function")
                return None
            return self._input(sch, [blocks[kinds.index(k)].rv for k in ("input_tile", "input_rows", "input")],
                               lanes, target)
        m = self._tile_size(sch, blocks[kinds.index("output")])
        rows = blocks[kinds.index("output_rows")].rv
        left = inline_spatial_producers(sch, blocks[:-1], keep=(rows,))
        if [b.rv for b in left] != [rows]:
            self.decline(name, "a block before the output stays")
            return None
        return self._output(sch, rows, root_blocks(sch)[-1].rv, m, target)

    @staticmethod
    def _tile_size(sch: Schedule, info) -> int:
        return int(sch.get(info.rv).annotations.get("winograd_m", 0)) or 2

    @staticmethod
    def _local_stage(sch: Schedule, block, loop, depth: int) -> None:
        """``block`` computed under ``loop`` (the ``depth``-th loop of its nest) into a local
        buffer: position loops unrolled, the innermost (the channel lanes) vectorised."""
        sch.compute_at(block, loop, preserve_unit_loops=False)
        sch.set_scope(block, 0, "local")
        *positions, lanes = sch.get_loops(block)[depth:]
        for p in positions:
            sch.unroll(p)
        if const_int(sch.get(lanes).extent) > 1:
            sch.vectorize(lanes)

    def _input(self, sch: Schedule, stages, lanes: int, target: Target) -> Schedule:
        tile, rows, block = stages
        xi, nu, t, c = sch.get_loops(block)
        channels = const_int(sch.get(c).extent)
        width = lanes if channels % lanes == 0 else (lanes // 2 if channels % (lanes // 2) == 0 else 1)
        c0, c1 = sch.split(c, factors=[None, width])
        sch.reorder(t, c0, xi, nu, c1)
        self._local_stage(sch, rows, c0, 2)
        self._local_stage(sch, tile, c0, 2)
        if target.num_cores > 1:
            sch.parallel(sch.fuse(t, c0))
        sch.unroll(xi)
        sch.unroll(nu)
        if width > 1:
            sch.vectorize(c1)
        return sch

    def _output(self, sch: Schedule, rows, block, m: int, target: Target) -> Schedule:
        n, kb, y, x, k = sch.get_loops(block)
        y0, y1 = sch.split(y, factors=[None, m])
        x0, x1 = sch.split(x, factors=[None, m])
        outer = (n, y0, kb) if self.rows_outside_channels else (n, kb, y0)
        sch.reorder(*outer, x0, y1, x1, k)
        self._local_stage(sch, rows, x0, 4)
        if target.num_cores > 1:
            sch.parallel(sch.fuse(*outer))
        sch.unroll(y1)
        sch.unroll(x1)
        try:
            sch.vectorize(k)
        except ScheduleError:
            pass
        return sch

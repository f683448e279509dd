"""``Transpose``: a (batched) 2-D transpose through shared memory (TVM's dlight
``gpu.Transpose``), so both the global reads and the global writes are coalesced.

Matched: the function's last block is spatial, reads one buffer whose last two indices
are the block's last two iterators swapped (``out[…, i, j] = f(in[…, j, i])``); spatial
producers are inlined first.  Schedule: a 32 × 32 tile per thread block (``blockIdx.x``
over tiles), 32 × 8 threads; the tile is read row by row into shared memory (rows padded
by one element against bank conflicts), then written out row by row.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule

from ..analysis import const_int, root_blocks
from ..base import ScheduleRule, func_name
from .common import gpu_limits, is_gpu, try_inline

TILE = 32
ROWS = 8  # threadIdx.y: rows of the tile handled at once


class Transpose(ScheduleRule):
    """Shared-memory tiled transpose."""

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        if not is_gpu(target):
            self.decline(name, f"target {target.kind.name!r} is not a GPU")
            return None
        sch = Schedule(func)
        blocks = root_blocks(sch)
        if not blocks or not all(b.is_spatial() for b in blocks):
            self.decline(name, "not all blocks are spatial")
            return None
        try_inline(sch, blocks[:-1])
        if len(root_blocks(sch)) != 1:
            self.decline(name, "spatial producers could not be inlined")
            return None
        info = root_blocks(sch)[0]
        n = len(info.kinds)
        out = info.writes[0] if len(info.writes) == 1 else None
        moved = [r for r in info.reads if len(r.dims) >= 2 and r.dims[-1] == frozenset({n - 2})
                 and r.dims[-2] == frozenset({n - 1})]
        if n < 2 or out is None or not info.binds_one_to_one or len(moved) != 1 or \
                out.dims[-2:] != (frozenset({n - 2}), frozenset({n - 1})):
            self.decline(name, "not a transpose of the last two axes")
            return None
        if gpu_limits(target).max_threads < TILE * ROWS:
            self.decline(name, f"needs {TILE * ROWS} threads per block")
            return None
        extents = [const_int(e) for e in info.loop_extents[-2:]]
        if any(e is not None and e < TILE for e in extents):
            self.decline(name, f"the transposed axes are narrower than a {TILE}-wide tile")
            return None
        return self._schedule(sch, info, moved[0])

    @staticmethod
    def _schedule(sch: Schedule, info, source) -> Schedule:
        loops = info.loops
        i_0, i_1 = sch.split(loops[-2], factors=[None, TILE])
        j_0, j_1 = sch.split(loops[-1], factors=[None, TILE])
        sch.reorder(*loops[:-2], i_0, j_0, i_1, j_1)
        tile = sch.fuse(*loops[:-2], i_0, j_0)
        sch.bind(tile, "blockIdx.x")
        index = next(n for n, r in enumerate(sch.get(info.rv).reads) if r.buffer is source.buffer)
        shared = sch.cache_read(info.rv, index, "shared")
        sch.compute_at(shared, tile)
        sch.storage_align(shared, 0, axis=-2, factor=TILE, offset=1)
        _, ty = sch.split(i_1, factors=[None, ROWS])
        sch.bind(ty, "threadIdx.y")
        sch.bind(j_1, "threadIdx.x")
        fetch = sch.get_loops(shared)
        rows_lp, cols_lp = fetch[-2], fetch[-1]
        _, fy = sch.split(rows_lp, factors=[None, ROWS])
        sch.bind(fy, "threadIdx.y")
        sch.bind(cols_lp, "threadIdx.x")
        return sch

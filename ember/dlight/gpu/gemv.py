"""``GEMV``: matrix-vector products — matmul-like blocks with a few rows (a batch-1 dense
layer, ``x @ W`` in decoding) — on GPU threads (TVM's dlight ``gpu.GEMV``).

Two plans, by which operand dimension is contiguous in memory:

* the weight contiguous along the reduction ``k`` (a dense layer's (N, K) weight): each
  output element is reduced by a group of ``threadIdx.x`` threads reading consecutive
  elements of its weight row (coalesced), partial sums combined by a cross-thread
  reduction; ``threadIdx.y`` groups take several outputs per thread block;
* the weight contiguous along the output column ``j`` ((K, N) weight): one thread per
  output element, consecutive threads reading consecutive columns, the reduction serial.

Spatial prologue blocks that only move data are inlined; a spatial epilogue (bias,
activation) is inlined into the write of each output where legal, else bound on its own.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import block_info, const_int, root_blocks
from ..base import ScheduleRule, func_name
from ..cpu.normalize import normalize_for_rules
from .common import bind_spatial, gpu_limits, is_gpu, pick_threads, try_inline, try_reverse_inline
from .matmul import GEMV_ROWS
from ..matmul_analysis import find_matmul, match_matmul, moves_data, rows


class GEMV(ScheduleRule):
    """Cross-thread reduction along k per output (k-contiguous weight), else thread per output."""

    # threads reducing one output (threadIdx.x) and outputs per thread block (threadIdx.y)
    reduce_threads = 64
    outputs_per_block = 4

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        if not is_gpu(target):
            self.decline(name, f"target {target.kind.name!r} is not a GPU")
            return None
        func = normalize_for_rules(func)
        sch = Schedule(func)
        found = find_matmul(sch)
        if isinstance(found, str):
            self.decline(name, found)
            return None
        pos, roles = found
        blocks = root_blocks(sch)
        m = rows(blocks[pos], roles)
        if m is None or m >= GEMV_ROWS:
            self.decline(name, f"{'symbolic' if m is None else m} rows: not a GEMV (dlight.gpu.Matmul's)")
            return None
        if not all(b.is_spatial() for n, b in enumerate(blocks) if n != pos):
            self.decline(name, "another reduction shares the function")
            return None
        limits = gpu_limits(target)
        kept = [b.rv for b in blocks[:pos] if not (moves_data(b) and not try_inline(sch, [b]))]
        mm = blocks[pos].rv
        epilogue = [b.rv for b in blocks[pos + 1:]]
        for rv in epilogue[:-1]:
            try_inline(sch, [block_info(sch, rv)])
        info = block_info(sch, mm)
        roles = match_matmul(info)
        if isinstance(roles, str):
            self.decline(name, f"after inlining the prologue: {roles}")
            return None
        along_k = roles.b.dims[-1] == frozenset({roles.k})
        if along_k:
            self._reduce_along_k(sch, info, roles, epilogue[-1] if epilogue else None, limits)
        else:
            if epilogue:
                try_reverse_inline(sch, epilogue[-1]) or bind_spatial(sch, epilogue[-1], pick_threads(None, limits))
            bind_spatial(sch, mm, pick_threads(const_int(info.loop_extents[roles.j]), limits))
            loops = sch.get_loops(mm)
            if len(loops) > 2:
                sch.decompose_reduction(mm, loops[2])
        for rv in kept:
            bind_spatial(sch, rv, pick_threads(None, limits))
        return sch

    def _reduce_along_k(self, sch: Schedule, info, roles, epilogue, limits) -> None:
        loops = info.loops
        spatial = [loops[p] for p in sorted((*roles.batch, *((roles.i,) if roles.i is not None else ()),
                                             roles.j))]
        sch.reorder(*spatial, loops[roles.k])
        out = sch.fuse(*spatial) if len(spatial) > 1 else spatial[0]
        tx_n = min(self.reduce_threads, limits.max_threads)
        ty_n = max(1, min(self.outputs_per_block, limits.max_threads // tx_n))
        bx, ty = sch.split(out, factors=[None, ty_n])
        _, tx = sch.split(loops[roles.k], factors=[None, tx_n])
        sch.bind(bx, "blockIdx.x")
        sch.bind(ty, "threadIdx.y")
        sch.bind(tx, "threadIdx.x")
        if epilogue is not None:
            sch.set_scope(info.rv, 0, "local")
            try:
                sch.reverse_compute_at(epilogue, ty)
                # one thread of each group writes its output (a threadIdx.x loop of extent 1)
                sch.bind(sch.add_unit_loop(epilogue), "threadIdx.x")
            except ScheduleError:  # the epilogue runs as its own loop nest
                sch.set_scope(info.rv, 0, "global")
                bind_spatial(sch, epilogue, pick_threads(None, limits))

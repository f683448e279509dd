"""``GeneralReduction``: one thread block per row for kernels made of row reductions and
what surrounds them — softmax, layer norm, RMS norm, log-softmax, mean/variance.

Shape matched (after inlining spatial intermediates): every block is spatial or a
reduction whose iterators are the row's spatial ones followed by reduction ones
("S…SR…R"), and all blocks share the leading row iterators.  Schedule::

    row (blockIdx.x)                      the first reduction's leading row loops, fused;
                                          later blocks moved under it (reverse_compute_at)
      reduction 1: k_0 · k_1 (threadIdx.x)   partial results per thread, then a
                                              cross-thread reduction; the row's result
                                              is kept in shared memory
      reduction 2 …                          (same, reading the first's result)
      last block: j_0 · j_1 (threadIdx.x)    the row's outputs, one per thread per step

A tuple reduction (several outputs, as legalized layer / RMS norms compute the sum and
the sum of squares together) is reduced by one thread of the block, serially.
The reduction loops bound to ``threadIdx.x`` are TVM's cross-thread reductions
(``LowerCrossThreadReduction`` turns them into ``tvm_thread_allreduce``).  Threads per
block: a warp multiple up to 256 (fewer for short rows), within the target's limit.
"""

from __future__ import annotations

import re

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import BlockInfo, block_info, const_int, root_blocks
from ..base import ScheduleRule, func_name
from .common import gpu_limits, is_gpu, pick_threads, try_inline
from .normalize import squeeze_intermediates

ROW_REDUCTION = re.compile(r"S*R+")


def leading_spatial(info: BlockInfo) -> int:
    return len(info.kinds) - len(info.kinds.lstrip("S"))


def row_shape(blocks: list[BlockInfo]) -> str | None:
    """Why the blocks are not "row reductions plus spatial blocks", or None when they are."""
    if not any(b.is_reduction() for b in blocks):
        return "no reduction block"
    for b in blocks:
        if not b.binds_one_to_one:
            return f"block {b.name} is not driven one loop per iterator"
        if not (b.is_spatial() or ROW_REDUCTION.fullmatch(b.kinds)):
            return f"block {b.name} ({b.kinds}) is neither spatial nor a row reduction (S…SR…R)"
    return None


class GeneralReduction(ScheduleRule):
    """Rows over blockIdx.x; each row's reductions and epilogue over threadIdx.x."""

    max_threads = 256

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        if not is_gpu(target):
            self.decline(name, f"target {target.kind.name!r} is not a GPU")
            return None
        func = squeeze_intermediates(func)
        sch = Schedule(func)
        blocks = root_blocks(sch)
        why = row_shape(blocks)
        if why:
            self.decline(name, why)
            return None
        rows = min(leading_spatial(b) for b in blocks if b.is_reduction() or b is blocks[-1])
        if rows == 0:
            self.decline(name, "the reductions have no row loop to share")
            return None
        last_err = None
        for shared in range(rows, 0, -1):  # keepdims reductions share fewer loops
            try:
                return self.schedule_rows(Schedule(func), shared, target)
            except ScheduleError as err:
                last_err = err
        self.decline(name, f"blocks cannot share a row loop: {str(last_err).splitlines()[0]}")
        return None

    def schedule_rows(self, sch: Schedule, rows: int, target: Target) -> Schedule:
        limits = gpu_limits(target)
        blocks = root_blocks(sch)
        try_inline(sch, blocks[:-1])
        blocks = root_blocks(sch)
        first = next(n for n, b in enumerate(blocks) if b.is_reduction())
        if first:
            raise ScheduleError(f"spatial block {blocks[0].name} before the first reduction cannot be inlined")
        anchor = blocks[0]
        if any(leading_spatial(b) < rows for b in (anchor, blocks[-1])):
            raise ScheduleError(f"the first reduction or the last block has fewer than {rows} row loops")
        threads = pick_threads(_widest_row(blocks), limits, self.max_threads)
        loops = anchor.loops
        row = sch.fuse(*loops[:rows]) if rows > 1 else loops[0]
        sch.bind(row, "blockIdx.x")
        for info in blocks[:-1]:  # a row's intermediate results stay on chip
            for n in range(len(sch.get(info.rv).writes)):
                sch.set_scope(info.rv, n, "shared")
        for info in blocks[1:]:
            sch.reverse_compute_at(info.rv, row, preserve_unit_loops=True)
        for info in blocks:
            self._bind_inner(sch, info.rv, threads)
        return sch

    @staticmethod
    def _bind_inner(sch: Schedule, rv, threads: int) -> None:
        """Fuse the loops of a block below its row (the reduction loops of a reduction, the
        row's columns of a spatial block), split off ``threads`` and bind them to threadIdx.x."""
        info = block_info(sch, rv)
        if info.is_reduction() and len(info.writes) > 1:
            # a tuple reduction (layer norm's sum and sum of squares): the cross-thread
            # lowering combines one value per thread, so one thread reduces the row
            loops = list(info.loops)
            at = next((n for n, lp in enumerate(loops) if sch.get(lp).thread_binding is not None), -1)
            sch.bind(sch.add_unit_loop(loops[at + 1] if at + 1 < len(loops) else rv), "threadIdx.x")
            return
        loops = list(info.loops)
        at = next((n for n, lp in enumerate(loops) if sch.get(lp).thread_binding is not None), -1)
        inner = loops[at + 1:]
        if info.is_reduction():
            inner = [lp for lp, k in zip(loops, info.kinds) if k == "R"] if info.binds_one_to_one \
                else inner
            inner = _reduction_loops(sch, info, inner)
        inner = [lp for lp in inner if const_int(sch.get(lp).extent) != 1] or inner[-1:]
        if not inner:
            lp = sch.add_unit_loop(rv)
            sch.bind(lp, "threadIdx.x")
            return
        fused = sch.fuse(*inner) if len(inner) > 1 else inner[0]
        extent = const_int(sch.get(fused).extent)
        if extent is not None and extent <= threads:
            sch.bind(fused, "threadIdx.x")
            return
        _, tx = sch.split(fused, factors=[None, threads])
        sch.bind(tx, "threadIdx.x")


def _widest_row(blocks: list[BlockInfo]) -> int | None:
    """The most iterations any block runs per row (None when symbolic)."""
    widest = 1
    for b in blocks:
        extent = 1
        for e in b.loop_extents[leading_spatial(b):]:
            value = const_int(e)
            extent = None if value is None or extent is None else extent * value
        if extent is None:
            return None
        widest = max(widest, extent)
    return widest


def _reduction_loops(sch: Schedule, info: BlockInfo, fallback: list) -> list:
    """The loops driving a reduction block's reduction iterators (after compute_at)."""
    from ember.tir import Var

    from .common import loop_vars_of

    block = sch.get(info.rv)
    realize_values = loop_vars_of(sch, info.rv)
    reduce_vars = set()
    for iv, value in zip(block.iter_vars, realize_values):
        if iv.iter_type.name == "CommReduce":
            reduce_vars |= {id(v) for v in _vars(value) if isinstance(v, Var)}
    picked = [lp for lp in info.loops if id(sch.get(lp).loop_var) in reduce_vars]
    return picked or fallback


def _vars(expr) -> list:
    from ember.tir import Var, post_order_visit

    found: list = []
    post_order_visit(expr, lambda n: found.append(n) if isinstance(n, Var) else None)
    return found

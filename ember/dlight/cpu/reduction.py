"""``Reduction``: schedule for row reductions and what surrounds them (softmax, layer_norm,
sum, mean, max …).

Shape matched: every block is spatial or a reduction whose iterators are spatial ones
followed by reduction ones ("SSRR"), with one loop per iterator.  Spatial intermediates
are inlined; the function's last block is the anchor: its leading loops that match the
reductions' spatial iterators are fused and run in parallel, every other block is moved
under them (``compute_at``, last producer first), so one row's reductions and its
normalisation run back to back on one core while the row is in cache.  Spatial blocks
then have their contiguous inner loop vectorised; a reduction over the contiguous last
axis accumulates in a vector of partial results (``rfactor``: float sums reassociated, as
in every vector BLAS).  A row of symbolic length, or one the full vector width does not
divide, gets a tail predicate (kept by ``compute_at``) that the vectoriser guards: whole
vectors run as vector code, the tail lane by lane (``row_lanes`` picks the width); a spatial
block's static ragged row whose tail is a power of two is partitioned instead, the tail one
narrower vector.
"""

from __future__ import annotations

import re

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import BlockInfo, const_int, root_blocks
from ..base import ScheduleRule, func_name
from .normalize import normalize_for_rules
from .common import PARALLEL_MIN, contiguous_inner, dividing_lanes, inline_spatial_producers, lanes_for

_ROW_REDUCTION = re.compile(r"S*R+")


def _leading_spatial(info: BlockInfo) -> int:
    return len(info.kinds) - len(info.kinds.lstrip("S"))


def _same_leading(info: BlockInfo, anchor: BlockInfo, limit: int) -> int:
    """How many of the first ``limit`` loops of ``info`` and ``anchor`` have equal extents."""
    from ember.ir import structural_equal

    n = 0
    for a, b in zip(info.loop_extents[:limit], anchor.loop_extents[:limit]):
        if not structural_equal(a, b, map_free_vars=False):
            break
        n += 1
    return n


class Reduction(ScheduleRule):
    """Rows in parallel, each row's reductions and epilogue fused under the row loop."""

    # a row's normalisation divides by a per-row value (softmax, layer norm): one reciprocal
    # per row and a multiply per element, as ONNX Runtime and PyTorch do (within 1 ulp)
    reciprocal_division = True

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        func = normalize_for_rules(func)
        sch = Schedule(func)
        blocks = root_blocks(sch)
        reductions = [b for b in blocks if b.is_reduction()]
        if not reductions:
            self.decline(name, "no reduction block")
            return None
        if not all(b.binds_one_to_one and (b.is_spatial() or _ROW_REDUCTION.fullmatch(b.kinds))
                   for b in blocks):
            self.decline(name, "a block is neither spatial nor a row reduction (S…SR…R)")
            return None
        rows = min(_leading_spatial(b) for b in blocks if b.is_reduction() or b is blocks[-1])
        # a row loop is shared only where it walks the same extent in the reduction and the
        # last block: a keepdims reduction's unit dim (mean over the last axis, then x - mean)
        # under the last block's column loop would redo the whole row's reduction per element
        rows = min([rows] + [_same_leading(b, blocks[-1], rows) for b in reductions])
        if rows == 0:
            self.decline(name, "the reductions have no spatial row loop to share")
            return None
        # keepdims reductions ("SSR" with a unit row) share fewer loops: try the widest first
        last_err = None
        for shared in range(rows, 0, -1):
            for vector_partials in (True, False):  # scalar partials when the lanes cannot be scheduled
                try:
                    return self._schedule(func, shared, target, vector_partials)
                except ScheduleError as err:
                    last_err = err
        self.decline(name, f"blocks cannot share a row loop: {str(last_err).splitlines()[0]}")
        return None

    def _schedule(self, func: PrimFunc, rows: int, target: Target, vector_partials: bool = True) -> Schedule:
        sch = Schedule(func)
        blocks = root_blocks(sch)
        # softmax's exp feeds both the sum and the division: computed once per row, not inlined
        inline_spatial_producers(sch, blocks[:-1], keep=(), shared=False)
        blocks = root_blocks(sch)
        partials = [rf for b in blocks[:-1] if vector_partials and (rf := _split_into_lanes(sch, b, target)) is not None]
        blocks = root_blocks(sch)
        anchor = blocks[-1]
        if _leading_spatial(anchor) < rows:
            raise ScheduleError(f"the last block has fewer than {rows} spatial loops")
        loops = anchor.loops
        for info in reversed(blocks[:-1]):
            sch.compute_at(info.rv, loops[rows - 1], preserve_unit_loops=True)
        row = sch.fuse(*loops[:rows]) if rows > 1 else loops[0]
        n_rows = const_int(sch.get(row).extent)
        work = 1
        for e in anchor.loop_extents:
            work *= const_int(e) or PARALLEL_MIN
        if target.num_cores > 1 and (n_rows is None or (n_rows > 1 and work >= 4096)):
            sch.parallel(row)
        for rf in partials:
            _vectorize_partials(sch, rf)
        row_loop = sch.get(row)
        for info in root_blocks_under(sch, blocks):
            # (the anchor's own row loops are fused into one: its inner loop is the next)
            if info.is_spatial() and sch.get(info.loops[-1]) is not row_loop and contiguous_inner(info):
                inner = sch.get(info.loops[-1])
                lanes = lanes_for(target, info.writes[0].buffer.dtype.bits)
                extent = const_int(inner.extent)
                if extent is not None and extent > lanes and _vector_tail(extent % lanes):
                    whole, tail = sch.loop_partition(info.loops[-1], [extent - extent % lanes])
                    _, vec = sch.split(whole, factors=[None, lanes])
                    sch.vectorize(vec)
                    sch.vectorize(tail)
                elif extent is None or extent >= lanes:
                    _, vec = sch.split(info.loops[-1], factors=[None, row_lanes(extent, lanes)])
                    sch.vectorize(vec)
        return sch


def _vector_tail(tail: int) -> bool:
    """Whether a ragged row's last ``tail`` elements run as one narrower vector of their own
    (``loop_partition``): a power of two of at least 2 lanes.  Lane by lane under the
    vectoriser's guard, a softmax row of 1000 floats on AVX-512 made 8 scalar ``expf`` calls."""
    return tail >= 2 and tail & (tail - 1) == 0


def row_lanes(extent: int | None, lanes: int) -> int:
    """Vector width for a row of ``extent`` elements: a narrower one that divides the row
    (no tail) unless the full width's whole vectors plus its ragged tail, which runs lane by
    lane under the vectoriser's guard, take fewer steps (1000 floats on AVX-512: 62 vectors
    of 16 and 8 single lanes beat 125 vectors of 8)."""
    narrow = dividing_lanes(extent, lanes)
    if extent is None or narrow == lanes:
        return lanes
    return lanes if extent // lanes + extent % lanes < extent // narrow else narrow


def root_blocks_under(sch: Schedule, blocks: list[BlockInfo]) -> list[BlockInfo]:
    """Fresh facts (loops) about ``blocks`` after they moved."""
    from ..analysis import block_info

    return [block_info(sch, b.rv) for b in blocks]



def _split_into_lanes(sch: Schedule, info: BlockInfo, target: Target):
    """``rfactor`` a row reduction over a contiguous last axis into ``lanes`` partial results
    (one vector accumulator, summed at the end of the row): a vector load per step instead
    of a scalar dependency chain.  Float sums are reassociated, as in every vector BLAS.
    Returns the partial-result block, or None when the reduction does not fit."""
    if not info.is_reduction() or info.kinds[-1] != "R" or info.kinds.count("R") != 1:
        return None
    last = len(info.kinds) - 1
    if not info.reads or not all(r.dims and r.dims[-1] == frozenset({last}) for r in info.reads):
        return None
    extent = const_int(sch.get(info.loops[-1]).extent)
    full = lanes_for(target, info.writes[0].buffer.dtype.bits)
    if extent is not None and extent < 2 * full:
        return None
    _, lane = sch.split(info.loops[-1], factors=[None, row_lanes(extent, full)])
    return sch.rfactor(lane, -1)


def _vectorize_partials(sch: Schedule, rf) -> None:
    """Lane loop of a partial-result block innermost and vectorised, its init split off."""
    from ember.tir import Var

    from ..analysis import block_info

    info = block_info(sch, rf)
    lane_iter = next(iter(info.writes[0].dims[-1]))
    realize = _realize(sch, rf)
    bound = realize.iter_values[lane_iter]
    loops = sch.get_loops(rf)
    lane_loop = next(lp for lp in loops if sch.get(lp).loop_var is bound or (
        not isinstance(bound, Var) and _uses(bound, sch.get(lp).loop_var)))
    step = loops[-1] if loops[-1] != lane_loop else loops[-2]
    if loops.index(lane_loop) < loops.index(step):
        sch.reorder(step, lane_loop)  # compute_at put the lane loop outside the step loop
    init = sch.decompose_reduction(rf, step)
    sch.set_scope(rf, 0, "local")  # the partial sums stay in a register
    sch.vectorize(lane_loop)
    sch.vectorize(sch.get_loops(init)[-1])


def _realize(sch: Schedule, rv):
    from ember.tir import BlockRealize, post_order_visit

    block = sch.get(rv)
    found: list = []
    post_order_visit(sch.mod[sch.func_working_on].body,
                     lambda n: found.append(n) if isinstance(n, BlockRealize) and n.block is block else None)
    return found[0]


def _uses(expr, var) -> bool:
    from ember.tir import post_order_visit

    hit: list = []
    post_order_visit(expr, lambda n: hit.append(n) if n is var else None)
    return bool(hit)

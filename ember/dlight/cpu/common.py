"""Small helpers the CPU rules share: vector lanes for a dtype, inlining spatial producers,
the "fuse, split, parallel outer, vectorise inner" treatment of a spatial loop nest, and the
steps every register-tiled convolution rule ends with (epilogue into the write-back, the
accumulator tile's initialisation, the padding left as an elementwise loop nest)."""

from __future__ import annotations

from ember.target import Target
from ember.tir.schedule import Schedule, ScheduleError

from ..base import ScheduleRule

from ..analysis import BlockInfo, const_int, root_blocks

# below this many elements a loop nest runs on one thread (OpenMP start-up costs more)
PARALLEL_MIN = 1 << 14


def lanes_for(target: Target, bits: int) -> int:
    """Vector lanes of one register of the target for elements of ``bits`` bits."""
    return max(1, target.vector_width_bits // max(bits, 8))


def dividing_lanes(extent: int | None, lanes: int) -> int:
    """The widest of ``lanes``, ``lanes/2``, ``lanes/4`` (at least 4) dividing ``extent``, so
    the vector loop needs no predicate (a predicated vector loop runs lane by lane);
    ``lanes`` itself when none divides or the extent is symbolic."""
    if extent is None:
        return lanes
    for n in (lanes, lanes // 2, lanes // 4):
        if n >= 4 and extent % n == 0:
            return n
    return lanes


def split_tile(sch: Schedule, loop, factors: list, tunable: bool, max_innermost: int) -> list:
    """``sch.split(loop, factors)`` (``factors``: None first, then ints).  ``tunable``: when the
    ints divide the loop's extent, the factors are a sampled perfect tile whose default decision
    is exactly these factors, so MetaSchedule can change them (``MutateTileSize``, at most
    ``max_innermost`` for the innermost) while the default decision gives the same schedule."""
    extent = const_int(sch.get(loop).extent)
    inner = 1
    for f in factors[1:]:
        inner *= f
    if tunable and extent is not None and factors[0] is None and extent % inner == 0:
        decision = [extent // inner, *factors[1:]]
        return sch.split(loop, factors=sch.sample_perfect_tile(
            loop, n=len(factors), max_innermost_factor=max(max_innermost, factors[-1]), decision=decision))
    return sch.split(loop, factors=factors)


def inline_spatial_producers(sch: Schedule, blocks: list[BlockInfo], keep, shared: bool = True) -> list:
    """Inline every spatial block whose output is an intermediate; returns the blocks left.
    ``shared=False`` keeps blocks read by several consumers (their work is not repeated)."""
    left = []
    for b in blocks:
        if b.is_spatial() and b.rv not in keep and (shared or len(sch.get_consumers(b.rv)) <= 1):
            try:
                sch.compute_inline(b.rv)
                continue
            except ScheduleError:
                pass
        left.append(b)
    return left


def contiguous_inner(info: BlockInfo) -> bool:
    """Whether the innermost block iterator indexes the last dimension of every write."""
    last = len(info.kinds) - 1
    return all(w.dims and w.dims[-1] == frozenset({last}) for w in info.writes)


def schedule_spatial(sch: Schedule, info: BlockInfo, target: Target) -> None:
    """Fuse a spatial block's loops, run chunks of it in parallel, vectorise the inner lanes."""
    loops = sch.get_loops(info.rv)
    if not loops:
        return
    bits = info.writes[0].buffer.dtype.bits if info.writes else 32
    lanes = lanes_for(target, bits)
    vector = contiguous_inner(info)
    # loops of different index dtypes (int32 next to int64) are not fused together
    dtypes = [sch.get(lp).loop_var.dtype for lp in loops]
    same = len(loops)
    while same > 1 and dtypes[same - 2] == dtypes[-1]:
        same -= 1
    head, tail = loops[:same - 1], loops[same - 1:]
    # fused loops index by div/mod of the fused variable; the simplifier folds them back into
    # one affine index only for constant extents (not for x // (384 * seq) * (384 * seq) ...)
    symbolic = any(const_int(sch.get(lp).extent) is None for lp in tail[1:])
    if vector and len(tail) > 1 and (symbolic or not _flattens(info)):
        # a concat / broadcast / transpose read, or symbolic extents: fusing the last loop
        # with the others would put a div/mod per lane in its indices; keep the row loop
        # apart and vectorise it
        total_rows = _product(sch, tail)
        rows = tail[:-1]
        if len(rows) > 1 and const_int(sch.get(rows[-1]).extent) is None \
                and _constant_part(sch, rows[:-1]) >= max(target.num_cores, 2):
            # an innermost row loop of symbolic length (seq) fused with the others would
            # divide by it per row: it stays a serial loop under the fused outer rows
            rows = rows[:-1]
        row = sch.fuse(*rows) if len(rows) > 1 else rows[0]
        width = const_int(sch.get(tail[-1]).extent)
        if width is None or width >= 4:
            _, inner = sch.split(tail[-1], factors=[None, dividing_lanes(width, lanes)])
            sch.vectorize(inner)
        outer = head[0] if head else row
        if target.num_cores > 1 and (total_rows is None or total_rows >= PARALLEL_MIN):
            sch.parallel(outer)
        return
    fused = sch.fuse(*tail) if len(tail) > 1 else tail[0]
    total = const_int(sch.get(fused).extent)
    if vector and (total is None or total >= lanes):
        outer, inner = sch.split(fused, factors=[None, dividing_lanes(total, lanes)])
        sch.vectorize(inner)
    else:
        outer = fused
    if head:
        total = None if total is None or any(const_int(sch.get(h).extent) is None for h in head) else total
        outer = head[0]
    if target.num_cores > 1 and (total is None or total >= PARALLEL_MIN):
        sch.parallel(outer)


def _product(sch: Schedule, loops) -> int | None:
    total = 1
    for lp in loops:
        extent = const_int(sch.get(lp).extent)
        if extent is None:
            return None
        total *= extent
    return total


def _constant_part(sch: Schedule, loops) -> int:
    """The product of the loops' constant extents (symbolic ones count as 1)."""
    total = 1
    for lp in loops:
        total *= const_int(sch.get(lp).extent) or 1
    return total


def _flattens(info: BlockInfo) -> bool:
    """Whether every read indexes its buffer exactly as the write does (same shape, same
    iterator per dimension) and the body has no select: then the fused loop's index stays
    affine after flattening."""
    from ember.tir import Call, post_order_visit

    from ember.ir import structural_equal

    write = info.writes[0]
    shape = write.buffer.shape
    for r in info.reads:
        same = len(r.buffer.shape) == len(shape) and all(
            structural_equal(a, b, map_free_vars=False) for a, b in zip(r.buffer.shape, shape))
        if r.dims != write.dims or not same:
            return False
    selects: list = []
    post_order_visit(info.block.body, lambda n: selects.append(n) if isinstance(n, Call)
                     and getattr(n.op, "name", "") == "tir.if_then_else" else None)
    return not selects


def inline_epilogue(rule: ScheduleRule, sch: Schedule, name: str, blocks: list, pos: int) -> list:
    """Inline the blocks after the convolution (``blocks[pos]``) into its tile's write-back;
    returns the names of those kept apart.  All are kept apart when one writes another shape
    than the convolution (a slice of padded channels: inlined, the tile would write past it)."""
    rest = blocks[pos + 1:]
    shape = [const_int(d) for d in blocks[pos].writes[0].buffer.shape]
    if any([const_int(d) for d in b.writes[0].buffer.shape] != shape for b in rest):
        rule.decline(name, "epilogue kept apart: it changes the output's shape")
        return [b.name for b in rest]
    for b in rest[:-1]:
        sch.compute_inline(b.rv)
    if rest:
        try:
            sch.reverse_compute_inline(rest[-1].rv)
        except ScheduleError as err:
            rule.decline(name, f"epilogue kept apart: {str(err).splitlines()[0]}")
            return [rest[-1].name]
    return []


def finish_conv_tile(rule: ScheduleRule, sch: Schedule, name: str, blocks: list, pos: int, conv, acc,
                     first_reduction, outer, target: Target, write_back, before: list) -> None:
    """The steps a register-tiled convolution rule ends with, once its loops are split and
    ordered as ``outer (fused) · x_0 · reductions · tile loops · lanes`` and its accumulators
    cached in ``acc`` under ``x_0``: the epilogue inlined into the write-back, the tile's
    initialisation split off before ``first_reduction`` (tile loops unrolled, lanes
    vectorised), ``write_back(sch, acc)`` scheduling the write-back, ``outer`` parallel, and
    the blocks ``before`` the convolution (its padding, when kept as a copy) and any epilogue
    kept apart scheduled as elementwise loop nests."""
    apart = list(before) + inline_epilogue(rule, sch, name, blocks, pos)
    init = sch.decompose_reduction(conv, first_reduction)
    *tile, lanes = sch.get_loops(init)[2:]  # below the fused parallel loop and x_0
    for lp in tile:
        sch.unroll(lp)
    sch.vectorize(lanes)
    write_back(sch, acc)
    sch.parallel(outer)
    for b in root_blocks(sch):
        if b.name in apart:
            schedule_spatial(sch, b, target)

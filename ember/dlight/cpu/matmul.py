"""``Matmul``: register- and cache-tiled schedule for matmul / dense / batch-matmul blocks.

Detection (no names): a reduction block whose output is indexed by its spatial iterators,
reading two operands A and B where the reduction iterator ``k`` indexes both, ``i`` only A
and the output, ``j`` only B and the output, and any batch iterators all three.  Spatial
blocks before it (a transposed weight read, a cast) are inlined into it; spatial blocks
after it (bias add, relu, gelu …) are inlined into one epilogue computed per tile.

Loop nest (the schedule of benchmarks/bench_gemm.py, generalised)::

    batch·j_0 (parallel)              optional: B packed into a [K, nr] panel here
      i_0                             accumulator tile (or epilogue) written back here
        k
          i_1 (unrolled mr) · j_1_0 (unrolled nr/lanes) · j_1_1 (vectorised lanes)

A B packed at compile time into column panels (``B[j // nr, k, j % nr]``) sets nr and is
read as it is.  Small M (batch 1, GEMV-like) has two plans: with B contiguous along N, mr = M
and no packing (parallel over column panels, vectorised over N with ``x[k]`` broadcast); with B contiguous
along K (a dense layer's (N, K) weight), ``rfactor`` splits k into a vector accumulator per
output element (parallel over outputs, vectorised over k, lanes summed at the end).
Ragged N is split with predicates.  A symbolic M or N is padded to whole MR-row / NR-column
tiles (``pad_rows``: A's rows and B's columns read clamped, B through a padded copy made once
per column panel), so no multiply-add carries a predicate; the epilogue (or the copy into
the output) then reads the accumulator tile under the row-tile loop, with a predicate per
output element, and the accumulator still compacts into registers.  Kernels under
PARALLEL_MACS multiply-adds stay on one thread.  The function may contract a*b+c into FMAs
(``contract_fma``).
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import BlockInfo, const_int, root_blocks
from ..base import ScheduleRule, func_name
from ..matmul_analysis import MatmulRoles, match_matmul, moves_data
from .normalize import normalize_for_rules
from .pad_rows import pad_rows

MR, NR = 4, 64
WIDE_MR, WIDE_NR_VECTORS = 8, 3
# below this many multiply-adds a kernel runs on one thread
PARALLEL_MACS = 1 << 16


def _tile_rows(n: int | None, lanes: int) -> int:
    """Rows of the register tile: 8 with 3-vector panels (24 accumulators + 3 panel loads of
    AVX-512's 32 registers: 8 FMAs per load instead of 4) where N is a whole number of
    them, else MR."""
    return WIDE_MR if lanes == 16 and n is not None and n % (WIDE_NR_VECTORS * lanes) == 0 else MR


def _pick_nr(n: int | None, lanes: int) -> int:
    """Column panel width: NR, or the smallest multiple of lanes covering a narrow N."""
    if n is None or n >= NR:
        return NR
    return max(lanes, -(-n // lanes) * lanes)


def _wide(m: int | None, n: int | None, lanes: int) -> bool:
    return _tile_rows(n, lanes) == WIDE_MR and (m is None or m % WIDE_MR == 0)


def panel_width(m: int | None, n: int | None, lanes: int) -> int:
    """The column panel width (nr) of the tile this rule gives an m × n output; a weight packed
    at compile time into (N/nr, K, nr) panels (``relax.transform.PackMatmulWeights``) is read
    one contiguous panel per column tile."""
    return WIDE_NR_VECTORS * lanes if _wide(m, n, lanes) else _pick_nr(n, lanes)


def _packed_panel(roles: MatmulRoles) -> int | None:
    """nr of a B already in panels, ``B[j // nr, k, j % nr]``, else None."""
    dims = roles.b.dims
    if len(dims) != 3 or dims[0] != {roles.j} or dims[1] != {roles.k} or dims[2] != {roles.j}:
        return None
    return const_int(roles.b.buffer.shape[-1])


class Matmul(ScheduleRule):
    """Tiled GEMM / GEMV schedule for matmul-like reductions with fused prologue and epilogue."""

    contract_fma = True

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        try:
            return self._apply(func, target, allow_gemv=True)
        except ScheduleError as err:  # e.g. unit loops the vector-over-k plan cannot reorder
            self.decline(func_name(func), f"GEMV along k failed ({str(err).splitlines()[0]}); tiling")
            return self._apply(func, target, allow_gemv=False)

    def _apply(self, func: PrimFunc, target: Target, allow_gemv: bool) -> Schedule | None:
        name = func_name(func)
        sch = Schedule(normalize_for_rules(func))
        blocks = root_blocks(sch)
        found = [(n, match_matmul(b)) for n, b in enumerate(blocks)]
        hits = [(n, r) for n, r in found if isinstance(r, MatmulRoles)]
        if len(hits) != 1:
            why = "; ".join(f"{blocks[n].name}: {r}" for n, r in found if isinstance(r, str))
            self.decline(name, f"{len(hits)} matmul-like blocks ({why})")
            return None
        pos, roles = hits[0]
        # symbolic M / N: whole MR-row / NR-column tiles, no predicate per FMA
        padded = set()
        n_static = const_int(blocks[pos].loop_extents[roles.j])
        lanes = max(1, target.vector_width_bits // blocks[pos].writes[0].buffer.dtype.bits)
        for name_, multiple in (("i", _tile_rows(n_static, lanes)), ("j", NR)):
            axis = getattr(roles, name_)
            if axis is None or const_int(blocks[pos].loop_extents[axis]) is not None:
                continue
            func = pad_rows(sch.mod[sch.func_working_on], blocks[pos].name, axis, multiple,
                            copy_operands=name_ == "j")
            if func is None:
                continue
            sch = Schedule(func)
            blocks = root_blocks(sch)
            pos = next(n for n, b in enumerate(blocks) if isinstance(match_matmul(b), MatmulRoles))
            roles = match_matmul(blocks[pos])
            padded.add(name_)
        others = [b for n, b in enumerate(blocks) if n != pos]
        if not all(b.is_spatial() for b in others):
            self.decline(name, "another reduction shares the function")
            return None
        kept, padcopies = [], []
        for b in blocks[:pos]:  # prologue: data movement is inlined into the matmul; math
            if b.name.endswith("_padcopy"):  # (a layer norm feeding it) runs once per element,
                padcopies.append(b.name)  # before it; padded copies of B are placed per panel
            elif moves_data(b):
                sch.compute_inline(b.rv)
            else:
                kept.append(b.rv)
        if kept:
            self._schedule_kept(sch, kept, target)
        epilogue = [b.rv for b in blocks[pos + 1:]]
        for rv in epilogue[:-1]:
            sch.compute_inline(rv)
        info = root_blocks(sch)
        mm_info = next(b for b in info if b.is_reduction())
        roles = match_matmul(mm_info)
        if isinstance(roles, str):
            self.decline(name, f"after inlining the prologue: {roles}")
            return None
        last = epilogue[-1] if epilogue else None
        lanes = max(1, target.vector_width_bits // mm_info.writes[0].buffer.dtype.bits)
        if allow_gemv and self._gemv_along_k(mm_info, roles, lanes):
            self._gemv(sch, mm_info, roles, last, lanes, target)
        else:
            self._tile(sch, mm_info, roles, last, target, padded, padcopies)
        return sch

    @staticmethod
    def _schedule_kept(sch: Schedule, kept: list, target: Target) -> None:
        from ..analysis import block_info
        from .common import inline_spatial_producers, schedule_spatial

        infos = [block_info(sch, rv) for rv in kept]
        left = inline_spatial_producers(sch, infos[:-1], keep=()) + infos[-1:]
        for info in left:
            schedule_spatial(sch, block_info(sch, info.rv), target)

    @staticmethod
    def _gemv_along_k(info: BlockInfo, roles: MatmulRoles, lanes: int) -> bool:
        """Few rows and both operands contiguous along k (a dense layer's (N, K) weight):
        vectorise over k into a vector accumulator instead of packing the weight."""
        m = const_int(info.loop_extents[roles.i]) if roles.i is not None else 1
        k = const_int(info.loop_extents[roles.k])
        return (m is not None and m < MR and k is not None and k % lanes == 0
                and all(const_int(info.loop_extents[p]) == 1 for p in roles.batch)
                and roles.a.dims[-1] == frozenset({roles.k}) and roles.b.dims[-1] == frozenset({roles.k}))

    def _gemv(self, sch: Schedule, info: BlockInfo, roles: MatmulRoles, epilogue, lanes: int,
              target: Target) -> None:
        """rfactor k into ``lanes`` partial sums computed per output element as one vector:
        ``(i·j parallel) k_0 · k_1 (vectorised)``, then the lanes summed."""
        mm, loops = info.rv, info.loops
        _, k_1 = sch.split(loops[roles.k], factors=[None, lanes])
        rf = sch.rfactor(k_1, 0)
        final = sch.get_loops(mm)
        spatial = [final[p] for p in sorted(p for p in (roles.i, roles.j) if p is not None)]
        row = spatial[-1]
        sch.compute_at(rf, row)
        rf_loops = sch.get_loops(rf)
        lane, step = rf_loops[-2], rf_loops[-1]
        sch.reorder(step, lane)
        init = sch.decompose_reduction(rf, step)
        sch.vectorize(lane)
        sch.vectorize(sch.get_loops(init)[-1])
        outer = sch.fuse(*spatial) if len(spatial) > 1 else row
        if _worth_threads(info, target):
            sch.parallel(outer)
        if epilogue is not None:
            try:
                sch.reverse_compute_at(epilogue, outer)
            except ScheduleError as err:
                self.decline("epilogue", f"kept as its own loop nest: {str(err).splitlines()[0]}")
                from .common import schedule_spatial
                from ..analysis import block_info

                schedule_spatial(sch, block_info(sch, epilogue), target)

    def _tile(self, sch: Schedule, info: BlockInfo, roles: MatmulRoles, epilogue, target: Target,
              padded: set = frozenset(), padcopies: list = ()) -> None:
        mm = info.rv
        loops = info.loops
        bits = info.writes[0].buffer.dtype.bits
        lanes = max(1, target.vector_width_bits // bits)
        m = const_int(info.loop_extents[roles.i]) if roles.i is not None else 1
        n = const_int(info.loop_extents[roles.j])
        # small M: all rows in one tile; symbolic M: MR-row tiles (rows padded to whole tiles)
        nr = _packed_panel(roles) or panel_width(m, n, lanes)
        wide = _wide(m, n, lanes) and nr == WIDE_NR_VECTORS * lanes
        mr = (WIDE_MR if wide else MR) if m is None else min(m, WIDE_MR if wide else MR)
        # a padded extent is a whole number of tiles: no predicate on the split
        j_0, j_1 = sch.split(loops[roles.j], factors=[None, nr], disable_predication="j" in padded)
        if roles.i is not None:
            i_0, i_1 = sch.split(loops[roles.i], factors=[None, mr], disable_predication="i" in padded)
        else:
            i_0 = i_1 = None
        batch = [loops[p] for p in roles.batch]
        order = [*batch, j_0, *(x for x in (i_0,) if x is not None), loops[roles.k],
                 *(x for x in (i_1,) if x is not None), j_1]
        sch.reorder(*order)
        outer = sch.fuse(*batch, j_0) if batch else j_0
        tile = i_0 if i_0 is not None else outer
        if padcopies:  # padded columns: B's clamped panel copied once per column panel
            for name in padcopies:
                copy = sch.get_block(name)
                sch.compute_at(copy, outer)
                _vectorize_inner(sch, copy, lanes)
        elif self._should_pack(info, roles, 64 if m is None else m, n):
            self._pack_b(sch, mm, info, roles, outer, nr)
        # the accumulator tile gets its own local buffer (compacted to mr × nr), written
        # back once per tile through the epilogue, inlined into the write-back
        tail = sch.cache_write(mm, 0, "local")
        write_back = tail
        if padded and epilogue is not None:
            # the tile covers padding rows / columns the output has not: the epilogue (or the
            # copy into the output) reads the accumulator tile directly, under the tile
            # loop, with a predicate per element instead of per multiply-add
            sch.compute_inline(tail)
            sch.reverse_compute_at(epilogue, tile)
            write_back = epilogue
        else:
            sch.reverse_compute_at(tail, tile)
            if epilogue is not None:
                try:
                    sch.reverse_compute_inline(epilogue)
                except ScheduleError as err:  # e.g. the epilogue reads the tile at a constant row
                    self.decline("epilogue", f"kept as its own loop nest: {str(err).splitlines()[0]}")
                    _vectorize_inner(sch, epilogue, lanes)
        sch.decompose_reduction(mm, loops[roles.k])
        j_1_0, j_1_1 = sch.split(j_1, factors=[None, lanes])
        if i_1 is not None:
            sch.unroll(i_1)
        sch.unroll(j_1_0)
        sch.vectorize(j_1_1)
        if _worth_threads(info, target):
            sch.parallel(outer)
        if write_back is epilogue and padded:
            _unroll_tile_vectors(sch, write_back, lanes)
        else:
            _vectorize_inner(sch, write_back, lanes)

    @staticmethod
    def _should_pack(info: BlockInfo, roles: MatmulRoles, m: int | None, n: int | None) -> bool:
        """Pack B into panels when it is shared by all batches and worth the copy: many rows
        of A reuse each panel, or B is read across its contiguous dimension."""
        b = roles.b
        if any(p in b.iters() for p in roles.batch) or _packed_panel(roles):
            return False
        transposed = roles.j not in b.dims[-1]
        big = m is not None and m >= 64 and (n or 0) >= 256
        return transposed or big

    @staticmethod
    def _pack_b(sch: Schedule, mm, info: BlockInfo, roles: MatmulRoles, outer, nr: int) -> None:
        block = sch.get(mm)
        index = next(n for n, r in enumerate(block.reads) if r.buffer is roles.b.buffer)
        panel = sch.cache_read(mm, index, "global")
        if outer is not None:
            sch.compute_at(panel, outer)
        dims = roles.b.dims
        jd = next(d for d, s in enumerate(dims) if roles.j in s)
        kd = next(d for d, s in enumerate(dims) if roles.k in s)
        if len(dims) == 2:
            def to_panel(*ax):
                return (ax[jd] // nr, ax[kd], ax[jd] % nr)

            # a ragged last panel is padding nobody reads
            sch.transform_layout(panel, ("write", 0), to_panel, assume_injective_transform=True)
        loops = sch.get_loops(panel)
        if jd == len(dims) - 1:
            sch.vectorize(loops[-1])
        elif len(dims) == 2 and len(loops) >= 2:
            # a transposed weight: walk the panel in its own order (contiguous vector stores)
            sch.reorder(loops[-1], loops[-2])
            sch.vectorize(loops[-2])


def _worth_threads(info: BlockInfo, target: Target) -> bool:
    """Threads pay off above PARALLEL_MACS multiply-adds (symbolic sizes: assume they do);
    a parallel region costs a few microseconds, and much more on a busy machine."""
    if target.num_cores <= 1:
        return False
    macs = 1
    for extent in info.loop_extents:
        value = const_int(extent)
        if value is None:
            return True
        macs *= value
    return macs >= PARALLEL_MACS


def _unroll_tile_vectors(sch: Schedule, block, lanes: int) -> None:
    """A padded tile's write-back (a predicate per row): each row as whole vectors of
    ``lanes``, unrolled, one register of the accumulator tile each.  As one vector of the
    tile's width per row, LLVM rebuilt every row from scalars under the predicate (~90
    shuffles per row; the symbolic BERT's qkv GEMM 1.12x its static kernel).  The row loop
    stays a loop: unrolled too, a GELU epilogue ran 1.07x slower."""
    loops = sch.get_loops(block)
    col = loops[-1]
    extent = const_int(sch.get(col).extent)
    if extent is None or extent % lanes or extent == lanes:
        _vectorize_inner(sch, block, lanes)
        return
    col_0, col_1 = sch.split(col, factors=[None, lanes])
    sch.unroll(col_0)
    sch.vectorize(col_1)


def _vectorize_inner(sch: Schedule, block, lanes: int) -> None:
    """Vectorise the innermost loop of a write-back / epilogue block when it is a whole vector."""
    loops = sch.get_loops(block)
    extent = const_int(sch.get(loops[-1]).extent)
    if extent is not None and extent > 1:
        sch.vectorize(loops[-1])

"""``Matmul``: the GPU schedule for matmul / dense / batch-matmul blocks (TVM's dlight
``gpu.Matmul``), shared-memory tiled with register micro-tiles.

Loop nest of the matmul block (``i`` rows, ``j`` columns, ``k`` reduction)::

    batch (blockIdx.z) · i_0 (blockIdx.y) · j_0 (blockIdx.x)
      i_1 (threadIdx.y) · j_1 (threadIdx.x)
        accumulator init (registers, MI × NJ per thread)
        k_0                     A and B tiles fetched into shared memory by all threads
          k_1 · i_2 · j_2       unrolled multiply-adds from shared memory into registers
        write-back (+ the epilogue: bias, activation, cast), NJ columns as one vector

Each block computes a (TY·MI) × (TX·NJ) tile of the output; the fetch of a tile of A
(or B) is one loop over its elements split across the block's threads, ``vector``
elements (16 bytes) per load.  float16 / bfloat16 matmuls with static sizes that are
multiples of 16 run on tensor cores instead (``matmul_tensor_core.py``; off with
``Matmul(tensor_cores=False)``).  Matmuls with a few rows (M under
``GEMV_ROWS``) are left to ``GEMV``; symbolic M (a dynamic batch) is tiled with
predicates on the row tiles.
"""

from __future__ import annotations

from dataclasses import dataclass

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import block_info, const_int, root_blocks
from ..base import LOG, ScheduleRule, func_name
from ..cpu.normalize import normalize_for_rules
from .common import bind_spatial, gpu_limits, is_gpu, try_inline, try_reverse_inline
from ..matmul_analysis import find_matmul, match_matmul, moves_data, rows
from .matmul_tensor_core import TensorCoreConfig, schedule_tensor_core, tensor_core_plan

# matmuls with fewer (static) rows than this are GEMV's
GEMV_ROWS = 16


@dataclass(frozen=True)
class MatmulConfig:
    """Tile sizes: threads per block (ty × tx), register micro-tile (mi × nj), k tile."""

    ty: int = 16
    tx: int = 16
    mi: int = 4
    nj: int = 4
    k: int = 16


class Matmul(ScheduleRule):
    """Shared-memory tiled GEMM with register micro-tiles."""

    def __init__(self, config: MatmulConfig | None = None, tensor_cores: bool = True,
                 tensor_core_config: TensorCoreConfig | None = None):
        self.config = config or MatmulConfig()
        self.tensor_cores = tensor_cores
        self.tensor_core_config = tensor_core_config or TensorCoreConfig()

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
        if m is not None and m < GEMV_ROWS:
            self.decline(name, f"{m} rows: a GEMV (dlight.gpu.GEMV schedules it)")
            return None
        if not all(b.is_spatial() for n, b in enumerate(blocks) if n != pos):
            self.decline(name, "another reduction shares the function")
            return None
        if self.tensor_cores:
            try:
                return self._schedule(sch, pos, target, tensor_cores=True)
            except _TensorCoreFailed as err:  # e.g. an epilogue that cannot follow: the plain schedule
                self.decline(name, f"tensor cores: {err}; using the shared-memory schedule")
                sch = Schedule(func)
        return self._schedule(sch, pos, target)

    def _schedule(self, sch: Schedule, pos: int, target: Target, tensor_cores: bool = False) -> Schedule:
        limits = gpu_limits(target)
        cfg = self.config
        blocks = root_blocks(sch)
        mm = blocks[pos].rv
        kept = []
        for b in blocks[:pos]:  # copies / casts / transposes read through the matmul
            if not (moves_data(b) and try_inline(sch, [b]) == []):
                kept.append(b.rv)
        epilogue = [b.rv for b in blocks[pos + 1:]]
        for rv in epilogue[:-1]:
            try_inline(sch, [block_info(sch, rv)])
        info = block_info(sch, mm)
        roles = match_matmul(info)
        if isinstance(roles, str):
            raise ScheduleError(f"after inlining the prologue: {roles}")
        last = epilogue[-1] if epilogue else None
        if tensor_cores:
            plan = tensor_core_plan(info, roles, target, self.tensor_core_config)
            if not isinstance(plan, str):
                try:
                    schedule_tensor_core(sch, mm, roles, plan, last)
                except ScheduleError as err:
                    raise _TensorCoreFailed(str(err).splitlines()[0]) from None
                LOG.debug("Matmul: tensor cores (%s -> %s, %dx%d warps of %dx%d fragments)", plan.in_dtype,
                          plan.out_dtype, plan.wy, plan.wz, plan.fi, plan.fj)
                return sch
            LOG.debug("Matmul: no tensor cores: %s", plan)
        ty, tx = cfg.ty, cfg.tx
        if cfg.ty * cfg.tx > limits.max_threads:
            ty = max(1, limits.max_threads // tx)
        loops = info.loops
        i_parts = sch.split(loops[roles.i], factors=[None, ty, cfg.mi]) if roles.i is not None else None
        j_0, j_1, j_2 = sch.split(loops[roles.j], factors=[None, tx, cfg.nj])
        k_0, k_1 = sch.split(loops[roles.k], factors=[None, cfg.k])
        batch = [loops[p] for p in roles.batch]
        if i_parts is not None:
            i_0, i_1, i_2 = i_parts
            sch.reorder(*batch, i_0, j_0, i_1, j_1, k_0, k_1, i_2, j_2)
        else:
            sch.reorder(*batch, j_0, j_1, k_0, k_1, j_2)
        if batch:
            sch.bind(sch.fuse(*batch) if len(batch) > 1 else batch[0], "blockIdx.z")
        sch.bind(j_0, "blockIdx.x")
        sch.bind(j_1, "threadIdx.x")
        if i_parts is not None:
            sch.bind(i_0, "blockIdx.y")
            sch.bind(i_1, "threadIdx.y")
            thread_loops = (i_1, j_1)
        else:
            thread_loops = (j_1,)
        inner = thread_loops[-1]
        # the accumulator lives in registers, written back (through the epilogue) per thread
        tail = sch.cache_write(mm, 0, "local")
        sch.reverse_compute_at(tail, inner)
        if last is not None and not try_reverse_inline(sch, last):
            bind_spatial(sch, last, pick_fallback_threads(limits))
        for operand in (roles.a, roles.b):
            self._fetch_shared(sch, mm, operand, k_0, len(thread_loops) == 2 and (ty, tx) or (tx,))
        sch.decompose_reduction(mm, k_0)
        sch.unroll(k_1)
        for lp in (i_parts[2] if i_parts else None, j_2):
            if lp is not None:
                sch.unroll(lp)
        _vectorize_tail(sch, tail, cfg.nj)
        for rv in kept:
            bind_spatial(sch, rv, pick_fallback_threads(limits))
        return sch

    @staticmethod
    def _fetch_shared(sch: Schedule, mm, operand, k_0, threads: tuple) -> None:
        """Copy the operand's tile into shared memory under ``k_0``, all threads sharing the
        copy: the copy's loops fused and split ``[serial, (threadIdx.y,) threadIdx.x, vector]``."""
        block = sch.get(mm)
        index = next(n for n, r in enumerate(block.reads) if r.buffer is operand.buffer)
        shared = sch.cache_read(mm, index, "shared")
        sch.compute_at(shared, k_0)
        k_loop = sch.get(k_0)
        all_loops = sch.get_loops(shared)
        at = next(n for n, lp in enumerate(all_loops) if sch.get(lp) is k_loop)
        loops = all_loops[at + 1:]
        vec = _vector_lanes(operand.buffer, const_int(sch.get(loops[-1]).extent))
        fused = sch.fuse(*loops) if len(loops) > 1 else loops[0]
        parts = sch.split(fused, factors=[None, *threads, vec])
        tags = ("threadIdx.y", "threadIdx.x") if len(threads) == 2 else ("threadIdx.x",)
        for lp, tag in zip(parts[1:1 + len(threads)], tags):
            sch.bind(lp, tag)
        if vec > 1:
            sch.vectorize(parts[-1])
        else:
            sch.unroll(parts[-1])


class _TensorCoreFailed(Exception):
    """The tensor-core schedule did not apply; Matmul starts over with the plain one."""


def pick_fallback_threads(limits) -> int:
    return min(256, limits.max_threads)


def _vector_lanes(buffer, inner: int | None) -> int:
    """Elements per 16-byte load when the buffer's rows and the tile's inner extent allow it."""
    lanes = max(1, 128 // buffer.dtype.bits)
    row = const_int(buffer.shape[-1]) if buffer.shape else None
    while lanes > 1 and (row is None or row % lanes or inner is None or inner % lanes):
        lanes //= 2
    return lanes


def _vectorize_tail(sch: Schedule, tail, nj: int) -> None:
    """The write-back's innermost loop as one vector store when it is NJ columns wide."""
    loops = sch.get_loops(tail)
    extent = const_int(sch.get(loops[-1]).extent)
    if extent is not None and extent == nj and nj > 1:
        try:
            sch.vectorize(loops[-1])
        except ScheduleError:
            pass

"""The tensor-core path of ``dlight.gpu.Matmul``: float16 / bfloat16 GEMMs on ``wmma``.

Taken when the matmul block reads two float16 (or bfloat16) operands laid out as
``A[..., i, k]`` and ``B[..., k, j]`` (or ``B[..., j, k]``, a Linear layer's weight, loaded
as col_major fragments) and accumulates in float32 (or float16 for
float16), every extent is static, M, N and K are multiples of 16, and the target's
architecture has tensor cores (sm_70+, sm_80+ for bfloat16).  Otherwise ``Matmul``
keeps its shared-memory schedule.

Loop nest (``wy`` × ``wz`` warps per block, each ``fi`` × ``fj`` fragments of 16x16)::

    batch (blockIdx.z) · i_0 (blockIdx.y) · j_0 (blockIdx.x)
      i_1 (threadIdx.y) · j_1 (threadIdx.z)           one warp each; threadIdx.x = its 32 lanes
        fill accumulator fragments
        k_0                   A and B tiles → shared memory (all threads, vector loads)
          k_1                 fragments of A and B loaded from shared memory
            i_2 · j_2         mma_sync
        accumulators → C (global), or → shared memory
      with an epilogue: the block's tile from shared memory through the epilogue to the
      output, split over all the block's threads
"""

from __future__ import annotations

from dataclasses import dataclass

from ember.target import Target
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import block_info, const_int

__all__ = ["TensorCoreConfig", "tensor_core_plan", "schedule_tensor_core"]

_IN_DTYPES = {"float16": ("float32", "float16"), "bfloat16": ("float32",)}


@dataclass(frozen=True)
class TensorCoreConfig:
    """Largest tiling tried: warps per block (``wy`` × ``wz``), fragments per warp
    (``fi`` × ``fj``), and 16-wide k steps per shared tile (``fk``)."""

    wy: int = 2
    wz: int = 2
    fi: int = 2
    fj: int = 2
    fk: int = 2


@dataclass(frozen=True)
class _Plan:
    in_dtype: str
    out_dtype: str
    wy: int
    wz: int
    fi: int
    fj: int
    fk: int
    trans_b: bool = False  # B stored as (N, K) (a Linear layer's weight): col_major fragments


def _arch(target: Target) -> int:
    arch = str(target.attrs.get("arch") or "sm_80")
    digits = "".join(ch for ch in arch.removeprefix("sm_") if ch.isdigit())
    return int(digits) if digits else 80


def _split_pair(frags: int, warps: int, per_warp: int) -> tuple[int, int]:
    """(warps, fragments per warp) whose product divides ``frags``, largest first."""
    for w in (warps, 2, 1):
        for f in (per_warp, 2, 1):
            if w <= warps and f <= per_warp and frags % (w * f) == 0:
                return w, f
    return 1, 1


def tensor_core_plan(info, roles, target: Target, cfg: TensorCoreConfig) -> _Plan | str:
    """The tiling for a matmul block on tensor cores, or why it does not qualify."""
    a, b, out = roles.a.buffer, roles.b.buffer, info.writes[0].buffer
    in_dtype, out_dtype = str(a.dtype), str(out.dtype)
    if str(b.dtype) != in_dtype or in_dtype not in _IN_DTYPES or out_dtype not in _IN_DTYPES[in_dtype]:
        return f"operands {a.dtype} x {b.dtype} -> {out.dtype}: no tensor-core intrinsic"
    need = 80 if in_dtype == "bfloat16" else 70
    if _arch(target) < need:
        return f"{target.attrs.get('arch')} has no {in_dtype} tensor cores (needs sm_{need})"
    if roles.i is None:
        return "no row iterator"
    extents = [const_int(e) for e in info.loop_extents]
    if any(e is None for e in extents):
        return "symbolic extents"
    m, n, k = extents[roles.i], extents[roles.j], extents[roles.k]
    if m % 16 or n % 16 or k % 16:
        return f"M, N, K = {m}, {n}, {k} are not all multiples of 16"
    # A indexed (..., i, k) and B (..., k, j) or (..., j, k): the fragments the intrinsics load
    a_dims, b_dims = [next(iter(d), None) for d in roles.a.dims], [next(iter(d), None) for d in roles.b.dims]
    if a_dims[-2:] != [roles.i, roles.k] or b_dims[-2:] not in ([roles.k, roles.j], [roles.j, roles.k]):
        return "operand layouts other than A[i, k] @ B[k, j] or B[j, k] (e.g. a transposed A)"
    trans_b = b_dims[-2:] == [roles.j, roles.k]
    wy, fi = _split_pair(m // 16, cfg.wy, cfg.fi)
    wz, fj = _split_pair(n // 16, cfg.wz, cfg.fj)
    fk = cfg.fk if (k // 16) % cfg.fk == 0 else 1
    return _Plan(in_dtype, out_dtype, wy, wz, fi, fj, fk, trans_b)


def schedule_tensor_core(sch: Schedule, mm, roles, plan: _Plan, epilogue) -> None:
    """Schedule the matmul block ``mm`` (prologue already inlined) on tensor cores;
    ``epilogue``: the last block after it (None when ``mm`` writes the output)."""
    from ember.tir.tensor_intrin import cuda as tc

    from .common import try_reverse_inline

    info = block_info(sch, mm)
    loops = info.loops
    i0, i1, i2, i3 = sch.split(loops[roles.i], factors=[None, plan.wy, plan.fi, 16])
    j0, j1, j2, j3 = sch.split(loops[roles.j], factors=[None, plan.wz, plan.fj, 16])
    k0, k1, k2 = sch.split(loops[roles.k], factors=[None, plan.fk, 16])
    batch = [loops[p] for p in roles.batch]
    sch.reorder(*batch, i0, j0, i1, j1, k0, k1, i2, j2, i3, j3, k2)
    if batch:
        sch.bind(sch.fuse(*batch) if len(batch) > 1 else batch[0], "blockIdx.z")
    sch.bind(i0, "blockIdx.y")
    sch.bind(j0, "blockIdx.x")
    sch.bind(i1, "threadIdx.y")
    sch.bind(j1, "threadIdx.z")
    if epilogue is not None:  # accumulators → shared memory → epilogue per lane → output
        staged = sch.cache_write(mm, 0, "shared")
        if not try_reverse_inline(sch, epilogue):
            raise ScheduleError("tensor-core Matmul: the epilogue cannot be inlined into the write-back")
        acc = sch.cache_write(mm, 0, "wmma.accumulator")
        sch.reverse_compute_at(acc, j1)
        sch.reverse_compute_at(staged, j0)  # after the warps: the block's tile, split over all its threads
        j_loop = sch.get(j0)
        loops = sch.get_loops(staged)
        at = next(n for n, lp in enumerate(loops) if sch.get(lp) is j_loop)
        fused = sch.fuse(*loops[at + 1:])
        parts = sch.split(fused, factors=[None, plan.wy, plan.wz, 32])
        for lp, tag in zip(parts[1:], ("threadIdx.y", "threadIdx.z", "threadIdx.x")):
            sch.bind(lp, tag)
        store = tc.get_wmma_store_intrin(plan.out_dtype, "shared")
    else:
        acc = sch.cache_write(mm, 0, "wmma.accumulator")
        sch.reverse_compute_at(acc, j1)
        store = tc.get_wmma_store_intrin(plan.out_dtype, "global")
    threads = plan.wy * plan.wz * 32
    frags = []
    for operand, scope in ((roles.a, "wmma.matrix_a"), (roles.b, "wmma.matrix_b")):
        index = next(n for n, r in enumerate(sch.get(mm).reads) if r.buffer is operand.buffer)
        shared = sch.cache_read(mm, index, "shared")
        sch.compute_at(shared, k0)
        _cooperative_fetch(sch, shared, k0, plan, threads)
        staged_in = sch.get(shared).writes[0].buffer
        index = next(n for n, r in enumerate(sch.get(mm).reads) if r.buffer is staged_in)
        frag = sch.cache_read(mm, index, scope)
        try:
            sch.compute_at(frag, k1)
        except ScheduleError:  # cache_read already placed it under k_1
            pass
        frags.append(frag)
    _tensorize_tiles(sch, frags[0], tc.get_wmma_load_intrin(plan.in_dtype, "a"))
    _tensorize_tiles(sch, frags[1], tc.get_wmma_load_intrin(plan.in_dtype, "b", trans=plan.trans_b))
    init = sch.decompose_reduction(mm, k0)
    sch.tensorize(sch.get_loops(init)[-2], tc.get_wmma_fill_intrin(plan.out_dtype))
    sch.tensorize(sch.get_loops(mm)[-3], tc.get_wmma_sync_intrin(plan.in_dtype, plan.out_dtype, plan.trans_b))
    _tensorize_tiles(sch, acc, store)


def _cooperative_fetch(sch: Schedule, block, k0, plan: _Plan, threads: int) -> None:
    """The tile copy's loops fused and split over every thread of the block, with
    16-byte vectors when the tile's rows allow."""
    k_loop = sch.get(k0)
    all_loops = sch.get_loops(block)
    at = next(n for n, lp in enumerate(all_loops) if sch.get(lp) is k_loop)
    loops = all_loops[at + 1:]
    extents = [const_int(sch.get(lp).extent) for lp in loops]
    total, row = 1, extents[-1]
    for e in extents:
        total *= e
    bits = sch.get(block).writes[0].buffer.dtype.bits
    vec = max(1, 128 // bits)
    while vec > 1 and (row % vec or total % (threads * vec)):
        vec //= 2
    fused = sch.fuse(*loops) if len(loops) > 1 else loops[0]
    parts = sch.split(fused, factors=[None, plan.wy, plan.wz, 32, vec])
    for lp, tag in zip(parts[1:4], ("threadIdx.y", "threadIdx.z", "threadIdx.x")):
        sch.bind(lp, tag)
    if vec > 1:
        sch.vectorize(parts[-1])


def _tensorize_tiles(sch: Schedule, block, intrin: str) -> None:
    """Split the block's last two loops into 16x16 tiles and tensorize each tile."""
    a, b = sch.get_loops(block)[-2:]
    a0, a1 = sch.split(a, factors=[None, 16])
    b0, b1 = sch.split(b, factors=[None, 16])
    sch.reorder(a0, b0, a1, b1)
    sch.tensorize(a1, intrin)

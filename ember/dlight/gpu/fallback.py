"""``Fallback``: the GPU rule that schedules anything — correct on threads, not fast.

Spatial intermediates are inlined where legal; each block left gets its spatial loops
fused, split by the target's thread limit (at most 1024) and bound to ``blockIdx.x`` /
``threadIdx.x``.  Reduction loops stay serial inside each thread, with their init split
off, so every loop that touches global memory runs under a thread binding.
"""

from __future__ import annotations

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule

from ..analysis import root_blocks
from ..base import ScheduleRule, func_name
from .common import bind_spatial, gpu_limits, is_gpu, try_inline


class Fallback(ScheduleRule):
    """Fuse spatial loops, split by the thread limit, bind blockIdx.x / threadIdx.x."""

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        if not is_gpu(target):
            self.decline(name, f"target {target.kind.name!r} is not a GPU")
            return None
        sch = Schedule(func)
        blocks = root_blocks(sch)
        if not blocks:
            self.decline(name, "no blocks")
            return None
        limits = gpu_limits(target)
        left = try_inline(sch, blocks[:-1]) + blocks[-1:]
        for info in left:
            bind_spatial(sch, info.rv, min(1024, limits.max_threads))
            loops = sch.get_loops(info.rv)
            if info.is_reduction() and len(loops) > 2:  # [blockIdx, threadIdx, reduction…]
                sch.decompose_reduction(info.rv, loops[2])
        return sch

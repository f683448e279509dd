"""``Reduction``: one reduction block (sum, mean, max, argmax-free norms…) and the
spatial blocks around it, on GPU threads (TVM's dlight ``gpu.Reduction``).

Two layouts of the reduction iterators are handled:

* reduction innermost (``S…SR…R``, a row sum): one thread block per output element
  (``blockIdx.x``), its reduction loops fused and split across ``threadIdx.x``, the
  partial sums combined by a cross-thread reduction — GeneralReduction's schedule for a
  single reduction;
* spatial iterators after the reduction (``S…SR…RS…S``, a column sum over axis 0):
  threads run over the output elements (consecutive threads read consecutive memory),
  each looping over the reduction serially.

Functions with more than one reduction are GeneralReduction's (softmax, layer norm).
"""

from __future__ import annotations

import re

from ember.target import Target
from ember.tir import PrimFunc
from ember.tir.schedule import Schedule

from ..analysis import root_blocks
from ..base import ScheduleRule, func_name
from .common import bind_spatial, gpu_limits, is_gpu, pick_threads, try_inline, try_reverse_inline
from .general_reduction import GeneralReduction
from .normalize import squeeze_intermediates

_INNER_SPATIAL = re.compile(r"S*R+S+")


class Reduction(ScheduleRule):
    """A single reduction: cross-thread over an innermost reduction, else threads over outputs."""

    def apply(self, func: PrimFunc, target: Target, tunable: bool) -> Schedule | None:
        name = func_name(func)
        if not is_gpu(target):
            self.decline(name, f"target {target.kind.name!r} is not a GPU")
            return None
        func = squeeze_intermediates(func)
        sch = Schedule(func)
        blocks = root_blocks(sch)
        reductions = [b for b in blocks if b.is_reduction()]
        if len(reductions) != 1:
            self.decline(name, f"{len(reductions)} reduction blocks (want exactly one)")
            return None
        if not all(b.is_spatial() or b.is_reduction() for b in blocks):
            self.decline(name, "a block has iterators that are neither spatial nor reductions")
            return None
        red = reductions[0]
        if not red.binds_one_to_one:
            self.decline(name, "the reduction is not driven one loop per iterator")
            return None
        if _INNER_SPATIAL.fullmatch(red.kinds) or _spatial_innermost(red):
            return self._inner_spatial(sch, target)
        if red.kinds.startswith("S"):  # rows of a reduction over the innermost axes
            return GeneralReduction().apply(func, target, tunable)
        if set(red.kinds) == {"R"}:
            return self._scalar(sch, target)
        self.decline(name, f"reduction iterators {red.kinds} are not R…R, S…SR…R nor S…SR…RS…S")
        return None

    @staticmethod
    def _inner_spatial(sch: Schedule, target: Target) -> Schedule:
        limits = gpu_limits(target)
        blocks = root_blocks(sch)
        pos = next(n for n, b in enumerate(blocks) if b.is_reduction())
        try_inline(sch, blocks[:pos])
        for b in blocks[pos + 1:]:
            if not try_reverse_inline(sch, b.rv):
                bind_spatial(sch, b.rv, pick_threads(None, limits))
        red = next(b for b in root_blocks(sch) if b.is_reduction())
        bind_spatial(sch, red.rv, pick_threads(None, limits))
        loops = sch.get_loops(red.rv)
        if len(loops) > 2:
            sch.decompose_reduction(red.rv, loops[2])
        return sch

    @staticmethod
    def _scalar(sch: Schedule, target: Target) -> Schedule:
        """A reduction to one value: one thread block, all its threads cross-reducing."""
        limits = gpu_limits(target)
        blocks = root_blocks(sch)
        pos = next(n for n, b in enumerate(blocks) if b.is_reduction())
        try_inline(sch, blocks[:pos])
        red = next(b for b in root_blocks(sch) if b.is_reduction())
        loops = sch.get_loops(red.rv)
        fused = sch.fuse(*loops) if len(loops) > 1 else loops[0]
        _, tx = sch.split(fused, factors=[None, pick_threads(None, limits)])
        bx = sch.add_unit_loop(sch.get_loops(red.rv)[0])
        sch.bind(bx, "blockIdx.x")
        sch.bind(tx, "threadIdx.x")
        for b in root_blocks(sch):
            if sch.get(b.rv) is not sch.get(red.rv) and not try_reverse_inline(sch, b.rv):
                bind_spatial(sch, b.rv, pick_threads(None, limits))
        return sch


def _spatial_innermost(info) -> bool:
    """Whether every read of a reduction indexes its last dimension with a spatial iterator
    (a column sum): consecutive threads should then take consecutive outputs."""
    spatial = {n for n, k in enumerate(info.kinds) if k == "S"}
    return bool(info.reads) and any(k == "S" for k in info.kinds) and all(
        r.dims and r.dims[-1] and r.dims[-1] <= spatial for r in info.reads)

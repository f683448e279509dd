"""The schedule-rule interface and the default rule lists per target kind.

A rule looks at one block of a schedule and returns the schedules it makes of it (the
input unchanged when it does not apply, several when it branches).  Rules sample their
choices (``sample_perfect_tile``, ``sample_categorical``, ``sample_compute_location``),
so the schedules they return are *design spaces*: traces whose decisions the search
strategy re-samples and mutates."""

from __future__ import annotations

import copy
from typing import Protocol

from ember.tir.schedule import BlockRV, Schedule


class ScheduleRule(Protocol):
    def _initialize_with_tune_context(self, context) -> None: ...

    def apply(self, sch: Schedule, block: BlockRV) -> list[Schedule]: ...

    def clone(self) -> ScheduleRule: ...


class PyScheduleRule:
    """Base class for rules written by users (TVM's name): override ``apply``."""

    target = None

    def _initialize_with_tune_context(self, context) -> None:
        self.target = context.target

    def apply(self, sch: Schedule, block: BlockRV) -> list[Schedule]:
        raise NotImplementedError(f"{type(self).__name__}.apply is not written")

    def clone(self):
        return copy.copy(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


from ..utils import derived_object  # noqa: E402,F401 - TVM also offers it here


def num_cores(target) -> int:
    return max(1, int(getattr(target, "num_cores", 1) or 1))


def is_gpu(target) -> bool:
    return target is not None and target.kind.name in ("cuda", "rocm", "vulkan", "metal", "opencl")


def default_rules(target) -> list:
    """TVM's default rule list for ``target`` ("llvm" → CPU rules, GPU kinds → GPU rules)."""
    from .add_rfactor import AddRFactor
    from .auto_bind import AutoBind
    from .auto_inline import AutoInline
    from .cross_thread_reduction import CrossThreadReduction
    from .multi_level_tiling import MultiLevelTiling, ReuseType
    from .parallel_vectorize_unroll import ParallelizeVectorizeUnroll
    from .random_compute_location import RandomComputeLocation

    if is_gpu(target):
        return [
            MultiLevelTiling("SSSRRSRS", tile_binds=["blockIdx.x", "vthread.x", "threadIdx.x"],
                             max_innermost_factor=64, vector_load_lens=[1, 2, 3, 4, 8, 16],
                             reuse_read=ReuseType("must", [4], "shared"),
                             reuse_write=ReuseType("must", [3], "local")),
            AutoInline(into_producer=True, into_consumer=True, disallow_if_then_else=False),
            CrossThreadReduction(thread_extents=[4, 8, 16, 32, 64, 128, 256, 512]),
            ParallelizeVectorizeUnroll(max_jobs_per_core=-1, max_vectorize_extent=-1,
                                       unroll_max_steps=[0, 16, 64, 512, 1024], unroll_explicit=True),
            AutoBind(max_threadblocks=256, thread_extents=[32, 64, 128, 256, 512, 1024]),
        ]
    return [
        # exp is kept out of inlining on CPUs (TVM's default inlines it): softmax reads it twice,
        # and a computed-once, vectorised exp row beats two scalar exp per element
        AutoInline(into_producer=False, into_consumer=True, disallow_if_then_else=True, disallow_op=("tir.exp",)),
        AddRFactor(max_jobs_per_core=16, max_innermost_factor=64),
        MultiLevelTiling("SSRSRS", max_innermost_factor=64,
                         reuse_write=ReuseType("may", [1, 2], "global")),
        ParallelizeVectorizeUnroll(max_jobs_per_core=16, max_vectorize_extent=64,
                                   unroll_max_steps=[0, 16, 64, 512], unroll_explicit=True),
        RandomComputeLocation(),
    ]

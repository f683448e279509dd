"""The postprocessor interface and the default lists per target kind.

A postprocessor runs on a candidate after its decisions are fixed: it rewrites the
schedule further (recorded after ``enter_postproc`` in the trace) and returns True, or
returns False to reject the candidate (e.g. a GPU kernel over the thread limit)."""

from __future__ import annotations

from typing import Protocol

from ember.tir.schedule import Schedule


class Postproc(Protocol):
    def _initialize_with_tune_context(self, context) -> None: ...

    def apply(self, sch: Schedule) -> bool: ...

    def clone(self) -> Postproc: ...


class PyPostproc:
    """Base class for postprocessors written by users (TVM's name)."""

    def _initialize_with_tune_context(self, context) -> None:
        pass

    def apply(self, sch: Schedule) -> bool:
        raise NotImplementedError(f"{type(self).__name__}.apply is not written")

    def clone(self):
        return self


def default_postprocs(target) -> list:
    from ..schedule_rule.schedule_rule import is_gpu
    from .disallow_dynamic_loop import DisallowDynamicLoop
    from .rewrite_parallel_vectorize_unroll import RewriteParallelVectorizeUnroll
    from .rewrite_reduction_block import RewriteReductionBlock
    from .verify_gpu_code import VerifyGPUCode

    if is_gpu(target):
        return [DisallowDynamicLoop(), RewriteParallelVectorizeUnroll(), RewriteReductionBlock(),
                VerifyGPUCode()]
    return [DisallowDynamicLoop(), RewriteReductionBlock(), RewriteParallelVectorizeUnroll()]

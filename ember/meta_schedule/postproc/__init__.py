"""Postprocessors: rewrite or reject a candidate once its decisions are fixed."""

from .disallow_dynamic_loop import DisallowDynamicLoop
from .postproc import Postproc, PyPostproc, default_postprocs
from .rewrite_parallel_vectorize_unroll import RewriteParallelVectorizeUnroll
from .rewrite_reduction_block import RewriteReductionBlock
from .verify_gpu_code import VerifyGPUCode

__all__ = ["DisallowDynamicLoop", "Postproc", "PyPostproc", "RewriteParallelVectorizeUnroll",
           "RewriteReductionBlock", "VerifyGPUCode", "default_postprocs", "create"]


def create(kind: str = "llvm") -> list:
    from ember.target import Target

    return default_postprocs(Target(kind) if isinstance(kind, str) else kind)

"""``tvm.meta_schedule.testing``: helpers for tuning tests — ``te_workload`` holds TE
definitions of standard operators (matmul, conv2d, batch matmul) to build PrimFuncs from."""

from . import te_workload

__all__ = ["te_workload"]

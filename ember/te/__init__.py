"""ember.te: tensor expressions — placeholders, computes, reductions — and their lowering
to TensorIR with ``create_prim_func``.  The TIR math intrinsics are re-exported here
(``te.exp``, ``te.if_then_else`` …) as in TVM."""

from ember.ir import Range, const
from ember.tir.op import *  # noqa: F403 - te.exp, te.max_value, te.if_then_else, …

from .create_prim_func import create_prim_func
from .extern_primfunc import extern_primfunc
from .scan import ScanOp, scan
from .operation import ComputeError, compute, extern, placeholder, reduce_axis, size_var, thread_axis, var
from .schedule import Schedule, Stage, create_schedule
from .tag import tag_scope
from .reduce import CommReducer, Reduce, comm_reducer, max, min, sum  # noqa: A004
from .tensor import (
    ComputeOp, ExternOp, Operation, PlaceholderOp, ProducerLoad, Tensor, TensorLoad, TeIterVar,
)

IterVar = TeIterVar

__all__ = [
    "tag_scope",
    "Range", "const", "create_prim_func", "compute", "extern", "placeholder", "reduce_axis",
    "size_var", "thread_axis", "var", "CommReducer", "Reduce", "comm_reducer", "max", "min",
    "sum", "ComputeOp", "ExternOp", "Operation", "PlaceholderOp", "ProducerLoad", "Tensor",
    "TensorLoad", "TeIterVar", "IterVar", "Schedule", "Stage", "create_schedule", "extern_primfunc",
    "ScanOp", "scan", "ComputeError",
]

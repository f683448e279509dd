"""``relax.op.ccl`` (``R.ccl.*``): collective communication between the workers of a
multi-device (disco) session, with TVM's names, attrs and struct info.

- ``allreduce(x, op_type="sum", in_group=True)``: every worker gets the reduction
  (sum, prod, min, max or avg) of all workers' ``x``; same shape.
- ``allgather(x, num_workers, in_group=True)``: the workers' ``x`` concatenated along axis
  0 (dim 0 times ``num_workers``).
- ``broadcast_from_worker0(x)``: every worker gets worker 0's ``x``.
- ``scatter_from_worker0(x, num_workers, axis=0)``: worker 0's ``x`` split into
  ``num_workers`` equal parts along ``axis``; each worker gets one (dim ``axis`` divided).

LegalizeOps makes them ``call_dps_packed`` of ``runtime.disco.*``
(``relax/transform/legalize_ops/ccl.py``); ember runs them with one worker
(``ember/runtime/vm/ccl_builtins.py``).
"""

from __future__ import annotations

from ember.ir import IntImm, node

from .. import _arith
from ..expr import Call
from ..struct_info import TensorStructInfo, shape_values
from .attrs import Attrs
from .base import make_call, normalize_axis, op_name, register, tensor_arg

__all__ = ["allreduce", "allgather", "broadcast_from_worker0", "scatter_from_worker0",
           "AllReduceAttrs", "AllGatherAttrs", "ScatterCollectiveAttrs", "ALLREDUCE_OP_CODES"]

# the reduction kinds of allreduce and the codes runtime.disco.allreduce takes (TVM's ReduceKind)
ALLREDUCE_OP_CODES = {"sum": 0, "prod": 1, "min": 2, "max": 3, "avg": 4}


@node
class AllReduceAttrs(Attrs):
    op_type: str = "sum"
    in_group: bool = True


@node
class AllGatherAttrs(Attrs):
    num_workers: int = 1
    in_group: bool = True


@node
class ScatterCollectiveAttrs(Attrs):
    num_workers: int = 1
    axis: int = 0


def _same_as_input(call: Call, ctx) -> TensorStructInfo:
    return tensor_arg(call, 0)


def _with_dims(x: TensorStructInfo, dims) -> TensorStructInfo:
    return TensorStructInfo(list(dims), x.dtype, x.vdevice)


def _infer_allgather(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    dims = shape_values(x)
    if dims is None or len(dims) == 0:
        return x  # as TVM: without known dims the input's struct info is kept
    num_workers = call.attrs.num_workers
    return _with_dims(x, [_arith.simplify(dims[0] * num_workers)] + list(dims[1:]))


def _infer_scatter(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    dims = shape_values(x)
    if dims is None:
        return x
    num_workers, axis = call.attrs.num_workers, call.attrs.axis
    axis = normalize_axis(call, axis, len(dims))
    dim = dims[axis]
    if isinstance(dim, IntImm) and dim.value % num_workers != 0:
        raise ValueError(f"{op_name(call)}: dim {axis} of the input ({dim.value}) is not divisible by "
                         f"num_workers {num_workers}")
    from ember import tir

    part = _arith.simplify(tir.div(dim, IntImm(dim.dtype, num_workers)))
    return _with_dims(x, [part if i == axis else d for i, d in enumerate(dims)])


register("ccl.allreduce", _same_as_input, arg_names=("x",))
register("ccl.allgather", _infer_allgather, arg_names=("x",))
register("ccl.broadcast_from_worker0", _same_as_input, arg_names=("x",))
register("ccl.scatter_from_worker0", _infer_scatter, arg_names=("x",))


def _positive(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"relax.ccl: {name} must be a positive int, got {value!r}")
    return value


def allreduce(x, op_type: str = "sum", in_group: bool = True) -> Call:
    """Reduce ``x`` over the workers (``op_type``: sum, prod, min, max or avg); every worker
    gets the result.  ``in_group``: within the worker's group rather than across all."""
    if op_type not in ALLREDUCE_OP_CODES:
        raise ValueError(f"relax.ccl.allreduce: op_type must be one of "
                         f"{', '.join(ALLREDUCE_OP_CODES)}, got {op_type!r}")
    return make_call("ccl.allreduce", [x], AllReduceAttrs(str(op_type), bool(in_group)))


def allgather(x, num_workers: int, in_group: bool = True) -> Call:
    """The ``num_workers`` workers' ``x`` concatenated along axis 0, on every worker."""
    return make_call("ccl.allgather", [x], AllGatherAttrs(_positive("num_workers", num_workers),
                                                          bool(in_group)))


def broadcast_from_worker0(x) -> Call:
    """Worker 0's ``x`` on every worker."""
    return make_call("ccl.broadcast_from_worker0", [x])


def scatter_from_worker0(x, num_workers: int, axis: int = 0) -> Call:
    """Worker 0's ``x`` cut into ``num_workers`` equal parts along ``axis``; worker i gets part i."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"relax.ccl.scatter_from_worker0: axis must be an int, got {axis!r}")
    return make_call("ccl.scatter_from_worker0", [x],
                     ScatterCollectiveAttrs(_positive("num_workers", num_workers), axis))

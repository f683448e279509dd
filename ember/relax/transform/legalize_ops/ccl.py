"""Legalisers of ``relax.ccl.*``: ``call_dps_packed`` of the ``runtime.disco.*`` functions
with TVM's arguments (``ember/runtime/vm/ccl_builtins.py`` runs them with one worker).

- allreduce → ``runtime.disco.allreduce(x, R.shape([op_code]), in_group)``
  (op codes: sum 0, prod 1, min 2, max 3, avg 4);
- allgather → ``runtime.disco.allgather(x, in_group)``;
- broadcast_from_worker0 → ``runtime.disco.broadcast_from_worker0(x, False)``;
- scatter_from_worker0 → ``x`` reshaped so that dim ``axis`` splits into
  ``(num_workers, dim / num_workers)``, that worker dim moved to the front, then
  ``runtime.disco.scatter_from_worker0(parts, False)``; the worker receives its part.

The output of each is the call's own struct info.
"""

from __future__ import annotations

from ember.ir import IntImm

from ...expr import ShapeExpr
from ...op.call import call_dps_packed
from ...op.ccl import ALLREDUCE_OP_CODES
from ...struct_info import shape_values
from .common import Legalizer

__all__ = ["TABLE"]


def _allreduce(bb, call):
    code = ALLREDUCE_OP_CODES[call.attrs.op_type]
    args = [call.args[0], ShapeExpr([code]), bool(call.attrs.in_group)]
    return call_dps_packed("runtime.disco.allreduce", args, out_sinfo=call.struct_info)


def _allgather(bb, call):
    args = [call.args[0], bool(call.attrs.in_group)]
    return call_dps_packed("runtime.disco.allgather", args, out_sinfo=call.struct_info)


def _broadcast_from_worker0(bb, call):
    return call_dps_packed("runtime.disco.broadcast_from_worker0", [call.args[0], False],
                           out_sinfo=call.struct_info)


def _scatter_from_worker0(bb, call):
    from ...op import permute_dims, reshape

    x = call.args[0]
    dims = shape_values(x.struct_info)
    if dims is None:
        return call  # the split needs the input's dims
    num_workers, axis = call.attrs.num_workers, call.attrs.axis
    axis = axis + len(dims) if axis < 0 else axis
    split = list(dims[:axis]) + [IntImm("int64", num_workers),
                                 call.struct_info.shape.values[axis]] + list(dims[axis + 1:])
    parts = bb.emit(reshape(x, split))
    if axis != 0:
        order = [axis] + [i for i in range(len(split)) if i != axis]
        parts = bb.emit(permute_dims(parts, order))
    return call_dps_packed("runtime.disco.scatter_from_worker0", (parts, False),
                           out_sinfo=call.struct_info)


TABLE: dict[str, Legalizer] = {
    "relax.ccl.allreduce": _allreduce,
    "relax.ccl.allgather": _allgather,
    "relax.ccl.broadcast_from_worker0": _broadcast_from_worker0,
    "relax.ccl.scatter_from_worker0": _scatter_from_worker0,
}

"""``relax.op.builtin``: runtime built-ins used by lowering (tensor allocation, kill)."""

from __future__ import annotations

from ember.ir import DataType, as_expr, node

from ..expr import Call, DataTypeImm, PrimValue, ShapeExpr, StringImm
from ..struct_info import TensorStructInfo
from .attrs import Attrs
from ._infer import allocated_tensor
from .base import make_call, register

__all__ = ["alloc_tensor", "stop_lift_params"]


def _infer_alloc(call: Call, ctx) -> TensorStructInfo:
    return allocated_tensor(call, 0, 1)


register("builtin.alloc_tensor", _infer_alloc, arg_names=("shape", "dtype", "runtime_device_index", "storage_scope"))


def alloc_tensor(shape, dtype, runtime_device_index=0, storage_scope: str = "global") -> Call:
    """Allocate an uninitialised tensor (used once the graph is in destination-passing style)."""
    if isinstance(shape, list | tuple):
        shape = ShapeExpr(shape)
    dtype = dtype if isinstance(dtype, DataTypeImm) else DataTypeImm(DataType(dtype))
    idx = runtime_device_index if isinstance(runtime_device_index, PrimValue) else PrimValue(as_expr(runtime_device_index, "int64"))
    scope = storage_scope if isinstance(storage_scope, StringImm) else StringImm(storage_scope)
    return make_call("builtin.alloc_tensor", [shape, dtype, idx, scope])


@node
class _NoAttrs(Attrs):
    pass


register("builtin.stop_lift_params", lambda call, ctx: call.args[0].struct_info, arg_names=("x",))


def stop_lift_params(x) -> Call:
    return make_call("builtin.stop_lift_params", [x])



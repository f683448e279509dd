"""Explicit-memory Relax operators used after CallTIRRewrite (TVM's ``relax.memory.*``).

``memory.alloc_storage(size, virtual_device_index, storage_scope, dtype)`` returns a
block of ``size`` bytes (``size`` is a one-element shape, like TVM's);
``memory.alloc_tensor(storage, offset, shape, dtype)`` carves a tensor out of it;
``kill_storage`` / ``kill_tensor`` mark the end of a lifetime (no-ops on the Python VM,
where a storage returns to the pool when its last reference dies).
"""

from __future__ import annotations

from ember.ir import DataType, Op

from ..expr import Call, DataTypeImm, Expr, PrimValue, ShapeExpr, StringImm
from ..op._infer import allocated_tensor
from ..op.base import register
from ..struct_info import ObjectStructInfo, TensorStructInfo, TupleStructInfo

__all__ = ["alloc_storage", "alloc_tensor", "kill_storage", "kill_tensor", "MEMORY_OPS"]


def _infer_storage(call: Call, ctx) -> ObjectStructInfo:
    return ObjectStructInfo()


def _infer_tensor(call: Call, ctx) -> TensorStructInfo:
    return allocated_tensor(call, 2, 3)


def _infer_void(call: Call, ctx) -> TupleStructInfo:
    return TupleStructInfo([])


def _register(name: str, infer, arg_names: tuple, purity: bool) -> None:
    if not Op.is_registered("relax." + name):
        register(name, infer, arg_names=arg_names, purity=purity)


_register("memory.alloc_storage", _infer_storage,
          ("size", "virtual_device_index", "storage_scope", "dtype"), True)
_register("memory.alloc_tensor", _infer_tensor, ("storage", "offset", "shape", "dtype"), True)
_register("memory.kill_storage", _infer_void, ("storage",), False)
_register("memory.kill_tensor", _infer_void, ("tensor",), False)

MEMORY_OPS = frozenset(
    "relax." + n for n in ("memory.alloc_storage", "memory.alloc_tensor", "memory.kill_storage",
                           "memory.kill_tensor")
)


def _call(name: str, args) -> Call:
    call = Call(Op.get("relax." + name), args)
    rule = Op.get("relax." + name).get_attr("FInferStructInfo")
    call._set_struct_info(rule(call, None))
    return call


def alloc_storage(size, virtual_device_index: int = 0, storage_scope: str = "global",
                  dtype="uint8") -> Call:
    """A storage of ``size`` bytes (an int, a PrimExpr or a one-element ShapeExpr)."""
    if not isinstance(size, Expr):
        size = ShapeExpr([size])
    return _call("memory.alloc_storage", [size, PrimValue(virtual_device_index),
                                          StringImm(storage_scope), DataTypeImm(DataType(dtype))])


def alloc_tensor(storage: Expr, offset, shape, dtype) -> Call:
    """A tensor of ``shape``/``dtype`` at byte ``offset`` of ``storage``."""
    if not isinstance(shape, Expr):
        shape = ShapeExpr(shape)
    offset = offset if isinstance(offset, Expr) else PrimValue(offset)
    return _call("memory.alloc_tensor", [storage, offset, shape, DataTypeImm(DataType(dtype))])


def kill_storage(storage: Expr) -> Call:
    return _call("memory.kill_storage", [storage])


def kill_tensor(tensor: Expr) -> Call:
    return _call("memory.kill_tensor", [tensor])

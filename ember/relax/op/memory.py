"""``relax.op.memory`` (``R.memory.*`` in TVMScript): the explicit-memory operators
``alloc_storage``, ``alloc_tensor``, ``kill_storage`` and ``kill_tensor`` that memory
planning produces.  They are defined in ``relax/backend/memory_ops.py``; this module gives
them TVM's ``relax.op.memory`` names (loaded on first use to keep the import order)."""

from __future__ import annotations

__all__ = ["alloc_storage", "alloc_tensor", "kill_storage", "kill_tensor"]


def _ops():
    from ..backend import memory_ops

    return memory_ops


def alloc_storage(size, virtual_device_index=0, storage_scope="global", dtype="uint8"):
    """A storage of ``size`` bytes (a one-element shape)."""
    return _ops().alloc_storage(size, _int(virtual_device_index), _text(storage_scope), _text(dtype))


def alloc_tensor(storage, offset, shape, dtype):
    """A tensor of ``shape``/``dtype`` at byte ``offset`` of ``storage``."""
    return _ops().alloc_tensor(storage, _int(offset), shape, _text(dtype))


def kill_storage(storage):
    return _ops().kill_storage(storage)


def kill_tensor(tensor):
    return _ops().kill_tensor(tensor)


def _int(v):
    from ..expr import PrimValue

    if isinstance(v, PrimValue):
        return int(v.value.value)
    return v


def _text(v):
    from ..expr import DataTypeImm, StringImm

    if isinstance(v, StringImm):
        return v.value
    if isinstance(v, DataTypeImm):
        return str(v.value)
    return v

"""A pooled memory allocator for the VM, with counters.

CPU storage blocks are numpy byte arrays, aligned to 64 bytes (from 1 MiB on, on 2 MiB
pages: ``huge_pages.py``); blocks on another device (a GPU) are ``DeviceBlock``s allocated
through that device's ``DeviceAPI``, pooled per device.  When a ``Storage`` dies its block returns to a pool keyed by size, and the next request of that size takes it
back instead of allocating: with statically planned memory, a second run of the same
function allocates nothing new.  ``stats`` counts fresh allocations and reuses, which
tests use to check that.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import huge_pages
from ..device import Device, DeviceType, cpu
from ..ndarray import NDArray

__all__ = ["Storage", "DeviceBlock", "PooledAllocator", "default_allocator"]

_ALIGN = 64


@dataclasses.dataclass
class AllocatorStats:
    fresh_allocations: int = 0
    fresh_bytes: int = 0
    reused: int = 0

    def reset(self) -> None:
        self.fresh_allocations = self.fresh_bytes = self.reused = 0


class DeviceBlock:
    """A block of device memory (not host-addressable): its address, size and owner."""

    __slots__ = ("ptr", "nbytes", "device", "owner", "key")

    def __init__(self, device: Device, nbytes: int):
        from ..device import load_device_backend
        from ..device_api import get_device_api

        load_device_backend(device.device_type)
        api = get_device_api(device.device_type)
        if api is None:
            raise RuntimeError(f"alloc_storage: no memory back end is registered for {device}")
        self.ptr, self.owner = api.alloc(device.device_id, nbytes, _ALIGN)
        self.nbytes, self.device = nbytes, device
        self.key = (device.device_type, device.device_id, nbytes)


class Storage:
    """A block of device memory that tensors are carved out of."""

    __slots__ = ("block", "nbytes", "device", "pool", "__weakref__")

    def __init__(self, block: np.ndarray | DeviceBlock, nbytes: int, device: Device, pool: PooledAllocator):
        self.block, self.nbytes, self.device, self.pool = block, nbytes, device, pool

    def __del__(self):
        pool = self.pool
        if pool is not None:
            pool.release(self.block)

    def alloc_tensor(self, offset: int, shape, dtype) -> NDArray:
        """An NDArray view of ``shape``/``dtype`` at byte ``offset`` of this storage.

        Views of pooled blocks are cached by the pool (block, offset, shape, dtype), so a
        second run of a planned function builds no new NDArrays; such a view keeps the
        block alive, not this Storage: it is valid while the storage is (the VM holds its
        storages in registers until the function returns)."""
        pool = self.pool
        if pool is not None:
            key = (id(self.block), offset, tuple(shape), dtype)
            cached = pool.views.get(key)
            if cached is not None:
                return cached
        from ..dtype import DataType

        dt = DataType(dtype)
        count = 1
        for s in shape:
            count *= int(s)
        nbytes = count * dt.itemsize
        if offset + nbytes > self.nbytes:
            raise ValueError(
                f"alloc_tensor: a {dt} tensor of shape {tuple(shape)} ({nbytes} bytes) at offset "
                f"{offset} does not fit in a storage of {self.nbytes} bytes"
            )
        if isinstance(self.block, DeviceBlock):  # device memory: no numpy view
            array = NDArray(self.block.ptr + offset, shape, dt, self.device, owner=self.block)
            if pool is not None:
                pool.views[key] = array
            return array
        view = self.block[offset: offset + nbytes].view(dt.numpy()).reshape(tuple(int(s) for s in shape))
        if pool is None:
            return NDArray(view.ctypes.data, view.shape, dt, self.device, owner=self, np_view=view)
        array = pool.views[key] = NDArray(view.ctypes.data, view.shape, dt, self.device, owner=self.block,
                                          np_view=view)
        return array


class PooledAllocator:
    """Reuses freed blocks of the same (rounded) size; counts fresh allocations."""

    def __init__(self):
        self.free: dict = {}  # size (cpu) or (device type, id, size) → free blocks
        self.views: dict[tuple, NDArray] = {}  # tensor views of pooled blocks, see Storage.alloc_tensor
        self.stats = AllocatorStats()

    def alloc(self, nbytes: int, device: Device | None = None) -> Storage:
        size = max(_ALIGN, (int(nbytes) + _ALIGN - 1) // _ALIGN * _ALIGN)
        device = device or cpu(0)
        if device.device_type != DeviceType.CPU:
            return self._alloc_device(size, device)
        blocks = self.free.get(size)
        if blocks:
            block = blocks.pop()
            self.stats.reused += 1
        else:
            block = huge_pages.empty(size)  # 64-byte aligned; on huge pages from 1 MiB
            self.stats.fresh_allocations += 1
            self.stats.fresh_bytes += size
        return Storage(block, size, device, self)

    def _alloc_device(self, size: int, device: Device) -> Storage:
        blocks = self.free.get((device.device_type, device.device_id, size))
        if blocks:
            block = blocks.pop()
            self.stats.reused += 1
        else:
            block = DeviceBlock(device, size)
            self.stats.fresh_allocations += 1
            self.stats.fresh_bytes += size
        return Storage(block, size, device, self)

    def release(self, block: np.ndarray | DeviceBlock) -> None:
        key = block.key if isinstance(block, DeviceBlock) else block.nbytes
        self.free.setdefault(key, []).append(block)

    def clear(self) -> None:
        self.free.clear()
        self.views.clear()


default_allocator = PooledAllocator()

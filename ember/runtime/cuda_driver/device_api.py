"""``CudaDeviceAPI``: NDArray memory on NVIDIA GPUs (alloc, copy, sync) via the driver API.

Registered for DLPack device type 2 when ``ember.runtime.cuda_driver`` is imported, which
``ember.nd.empty`` / copies do on first use of a cuda device.
"""

from __future__ import annotations

from ..cuda_probe import cuda_device_count
from ..device_api import get_device_api, register_device_api
from . import driver

CUDA = 2


class CudaDeviceAPI:
    """What NDArray needs from a GPU: existence, allocation, copies, synchronisation."""

    def exist(self, device_id: int) -> bool:
        return device_id < cuda_device_count()

    def why_unavailable(self, device_id: int) -> str | None:
        return driver.why_unavailable(device_id)

    def alloc(self, device_id: int, nbytes: int, alignment: int):
        mem = driver.DeviceMemory(device_id, nbytes)  # cuMemAlloc is 256-byte aligned
        return mem.ptr, mem

    def copy(self, dst: int, dst_device: tuple[int, int], src: int, src_device: tuple[int, int], nbytes: int):
        on_gpu = (dst_device[0] == CUDA, src_device[0] == CUDA)
        device_id = dst_device[1] if on_gpu[0] else src_device[1]
        driver.memcpy(dst, on_gpu[0], src, on_gpu[1], nbytes, device_id)

    def sync(self, device_id: int) -> None:
        if driver.why_unavailable(device_id) is None:  # no usable GPU: nothing can be queued
            driver.synchronize(device_id)


def ensure_registered() -> CudaDeviceAPI:
    """Install the CUDA DeviceAPI unless another one is registered; return the active one."""
    api = get_device_api(CUDA)
    if api is None:
        api = CudaDeviceAPI()
        register_device_api(CUDA, api)
    return api

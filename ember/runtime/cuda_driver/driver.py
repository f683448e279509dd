"""The CUDA driver: initialisation, one primary context per GPU, memory and events.

The primary context is the one PyTorch and CuPy use, so pointers pass between them.
Every function raises CudaUnavailableError (what to install or check) when there is
no driver, no GPU or no bindings, and CudaError when a driver call fails.
"""

from __future__ import annotations

import functools
import threading

from ..cuda_probe import cuda_device_count
from .bindings import check, driver
from .errors import INSTALL_HINT, CudaUnavailableError

_LOCK = threading.Lock()
_CONTEXTS: dict[int, object] = {}


def why_unavailable(device_id: int = 0) -> str | None:
    """Why ``cuda(device_id)`` cannot be used (None when it can), without raising."""
    count = cuda_device_count()
    if count == 0:
        return ("no CUDA GPU is usable on this machine: the NVIDIA driver (libcuda.so.1) is missing or reports "
                "no device; ember.cuda().exist is False")
    if device_id >= count:
        return f"cuda({device_id}) does not exist: the driver reports {count} GPU(s)"
    try:
        driver()
    except CudaUnavailableError as err:
        return str(err)
    return None


@functools.cache
def _init() -> None:
    check(driver().cuInit(0), "cuInit")


def context(device_id: int = 0):
    """Make ``cuda(device_id)``'s primary context current on this thread; return it."""
    problem = why_unavailable(device_id)
    if problem is not None:
        raise CudaUnavailableError(problem)
    drv = driver()
    with _LOCK:
        ctx = _CONTEXTS.get(device_id)
        if ctx is None:
            _init()
            dev = check(drv.cuDeviceGet(device_id), "cuDeviceGet")
            ctx = check(drv.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
            _CONTEXTS[device_id] = ctx
    check(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    return ctx


def compute_capability(device_id: int = 0) -> tuple[int, int]:
    context(device_id)
    drv = driver()
    dev = check(drv.cuDeviceGet(device_id), "cuDeviceGet")
    attr = drv.CUdevice_attribute
    major, minor = (check(drv.cuDeviceGetAttribute(a, dev), "cuDeviceGetAttribute") for a in (
        attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
    return int(major), int(minor)


class DeviceMemory:
    """Owns a device allocation; freed when garbage-collected."""

    __slots__ = ("ptr", "nbytes", "device_id", "__weakref__")

    def __init__(self, device_id: int, nbytes: int):
        context(device_id)
        self.device_id = device_id
        self.nbytes = nbytes
        self.ptr = int(check(driver().cuMemAlloc(max(nbytes, 1)), f"cuMemAlloc({nbytes} bytes)"))

    def __del__(self):
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr:
            try:
                context(self.device_id)
                driver().cuMemFree(ptr)
            except Exception:  # interpreter shutdown or a dead context: nothing left to free
                pass


def memcpy(dst: int, dst_on_device: bool, src: int, src_on_device: bool, nbytes: int, device_id: int) -> None:
    """Copy ``nbytes`` between host and device pointers (synchronous with the default stream)."""
    if nbytes == 0:
        return
    context(device_id)
    drv = driver()
    if dst_on_device and src_on_device:
        check(drv.cuMemcpyDtoD(dst, src, nbytes), "cuMemcpyDtoD")
    elif dst_on_device:
        check(drv.cuMemcpyHtoD(dst, src, nbytes), "cuMemcpyHtoD")
    elif src_on_device:
        check(drv.cuMemcpyDtoH(dst, src, nbytes), "cuMemcpyDtoH")
    else:
        raise ValueError("memcpy: one side must be on the GPU")


def synchronize(device_id: int = 0) -> None:
    context(device_id)
    check(driver().cuCtxSynchronize(), "cuCtxSynchronize")


class EventTimer:
    """Times GPU work between ``start()`` and ``stop()`` with CUDA events (milliseconds)."""

    def __init__(self, device_id: int = 0):
        context(device_id)
        drv = driver()
        self.device_id = device_id
        self._start = check(drv.cuEventCreate(0), "cuEventCreate")
        self._end = check(drv.cuEventCreate(0), "cuEventCreate")

    def start(self) -> None:
        check(driver().cuEventRecord(self._start, 0), "cuEventRecord")

    def stop(self) -> float:
        drv = driver()
        check(drv.cuEventRecord(self._end, 0), "cuEventRecord")
        check(drv.cuEventSynchronize(self._end), "cuEventSynchronize")
        return float(check(drv.cuEventElapsedTime(self._start, self._end), "cuEventElapsedTime"))

    def __del__(self):
        try:
            drv = driver()
            drv.cuEventDestroy(self._start)
            drv.cuEventDestroy(self._end)
        except Exception:
            pass


__all__ = ["context", "why_unavailable", "compute_capability", "DeviceMemory", "memcpy", "synchronize",
           "EventTimer", "INSTALL_HINT"]

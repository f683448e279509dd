"""Ask the CUDA driver (libcuda) how many GPUs there are, without ever failing.

Only the driver library is touched (``cuInit`` + ``cuDeviceGetCount``); a machine
without the library, without a GPU, or with a broken driver simply reports 0.
The answer is computed once per process.
"""

from __future__ import annotations

import ctypes
import functools

_LIBRARY_NAMES = ("libcuda.so.1", "libcuda.so", "nvcuda.dll", "libcuda.dylib")


@functools.cache
def cuda_device_count() -> int:
    """Number of CUDA devices the driver reports; 0 when there is no usable driver."""
    for name in _LIBRARY_NAMES:
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        try:
            if lib.cuInit(ctypes.c_uint(0)) != 0:
                return 0
            count = ctypes.c_int(0)
            if lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
                return 0
            return max(count.value, 0)
        except (AttributeError, OSError):
            return 0
    return 0

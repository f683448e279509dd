"""ember's CUDA runtime: NVRTC compilation, driver-API memory, modules and kernel launches.

(Named ``cuda_driver`` because ``ember.runtime.cuda`` is the device factory ``cuda(0)``.)

``cuda-bindings`` is imported lazily, so this package imports (and registers the
CUDA ``DeviceAPI`` for NDArray) on machines without it; using a GPU then raises
``CudaUnavailableError`` naming what to install.  Never imports the compiler.
"""

from .device_api import CudaDeviceAPI, ensure_registered
from .driver import why_unavailable
from .errors import CudaError, CudaUnavailableError
from .module import CUDAHostModule, CUDAModule, HostFunction, KernelSpec
from .nvrtc import NVRTCError, compile_to_cubin, compile_to_ptx, find_cuda_include, nvrtc_available

ensure_registered()

__all__ = [
    "CudaDeviceAPI", "ensure_registered", "why_unavailable", "CudaError", "CudaUnavailableError",
    "CUDAHostModule", "CUDAModule", "HostFunction", "KernelSpec", "NVRTCError", "compile_to_cubin",
    "compile_to_ptx", "find_cuda_include", "nvrtc_available",
]

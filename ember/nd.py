"""``ember.nd``: the classic TVM spelling of the NDArray API (``nd.array``, ``nd.empty`` ...)."""

from .runtime.ndarray import NDArray, array, empty, from_dlpack
from .runtime.device import cpu, cuda, device, gpu, metal, opencl, rocm, vulkan

__all__ = [
    "NDArray",
    "array",
    "cpu",
    "cuda",
    "device",
    "empty",
    "from_dlpack",
    "gpu",
    "metal",
    "opencl",
    "rocm",
    "vulkan",
]

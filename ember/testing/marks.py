"""``requires_*`` decorators: tests that need a device, a package or a TVM feature ember
does not have are skipped with a reason, never failed.

Each requirement works as ``@requires_cuda`` and gives its pytest marks with
``requires_cuda.marks()``; GPU requirements also add the ``gpu`` marker, which the
project's pytest configuration deselects by default.
"""

from __future__ import annotations

import importlib.util

__all__ = ["Requirement", "requires_package", "requires_cuda_compute_version", "requires_nvcc_version",
           "device_enabled", "skip_if_32bit"]


class Requirement:
    """A condition a test needs; ``check()`` returns ``None`` when met, else the reason."""

    def __init__(self, name: str, check, gpu: bool = False):
        self.name, self._check, self.gpu = name, check, gpu

    def check(self):
        return self._check()

    def marks(self):
        import pytest

        reason = self.check()
        marks = [pytest.mark.gpu] if self.gpu else []
        if reason is not None:
            marks.append(pytest.mark.skip(reason=f"{self.name}: {reason}"))
        return marks

    def __call__(self, test=None):
        if test is None:  # used as @requires_llvm()
            return self
        for mark in self.marks():
            test = mark(test)
        return test


def _has_cuda():
    from ..runtime.device import cuda

    return None if cuda(0).exist else "needs a CUDA GPU (none found)"


def _has_llvm():
    return None if importlib.util.find_spec("llvmlite") else "needs llvmlite (the LLVM backend)"


def _unsupported(what):
    return lambda: f"{what} is not supported by ember"


requires_llvm = Requirement("llvm", _has_llvm)
requires_cuda = Requirement("cuda", _has_cuda, gpu=True)
requires_gpu = requires_cuda
requires_cudagraph = Requirement("cudagraph", _has_cuda, gpu=True)
requires_multi_gpu = Requirement("multi_gpu", _unsupported("running on several GPUs"), gpu=True)
requires_rpc = Requirement("rpc", _unsupported("tvm.rpc (remote sessions)"))
requires_aarch64_sve = Requirement("aarch64_sve", _unsupported("the AArch64 SVE target"))

_VENDOR = {
    "requires_opencl": "OpenCL", "requires_openclml": "OpenCL ML", "requires_vulkan": "Vulkan",
    "requires_rocm": "ROCm", "requires_matrixcore": "AMD matrix cores", "requires_hipblas": "hipBLAS",
    "requires_cudnn": "cuDNN offload", "requires_cublas": "cuBLAS offload", "requires_cutlass": "CUTLASS offload",
    "requires_metal": "Metal", "requires_hexagon": "Hexagon",
}
for _name, _what in _VENDOR.items():
    globals()[_name] = Requirement(_name[len("requires_"):], _unsupported(_what), gpu=True)
__all__ += ["requires_llvm", "requires_cuda", "requires_gpu", "requires_cudagraph", "requires_multi_gpu",
            "requires_rpc", "requires_aarch64_sve", *_VENDOR]


def requires_package(*packages):
    """Skip unless every named Python package can be imported."""
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    return Requirement("package", lambda: f"needs {', '.join(missing)}" if missing else None)


def requires_cuda_compute_version(major: int, minor: int = 0):
    """Skip unless a CUDA GPU of at least this compute capability is present."""

    def check():
        reason = _has_cuda()
        if reason:
            return reason
        from ..runtime.device import cuda

        have = tuple(int(x) for x in str(cuda(0).compute_version).split("."))
        return None if have >= (major, minor) else f"needs compute capability {major}.{minor}, have {have}"

    return Requirement("cuda_compute_version", check, gpu=True)


def requires_nvcc_version(major: int, minor: int = 0, release: int = 0):
    """Skip unless a GPU is present (ember compiles CUDA with NVRTC, not nvcc)."""
    return Requirement("nvcc_version", _has_cuda, gpu=True)


def device_enabled(target) -> bool:
    """Whether tests for ``target`` (a name such as "llvm" or "cuda") can run here."""
    from .devices import enabled_targets

    kind = str(target).split()[0]
    return any(name.split()[0] == kind for name, _ in enabled_targets())


def skip_if_32bit(reason: str = "needs a 64-bit platform"):
    """Skip on 32-bit Pythons."""
    import sys

    return Requirement("64bit", lambda: None if sys.maxsize > 2**32 else reason)

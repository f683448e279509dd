"""``libinfo()``: a dict of build and environment facts (versions, available back ends)."""

from __future__ import annotations

import platform
import sys
from importlib import metadata


def _package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def libinfo() -> dict[str, str]:
    """Version strings and feature flags, all as strings (as TVM's libinfo reports them)."""
    import numpy

    from ..runtime.cuda_probe import cuda_device_count

    try:
        import llvmlite
        import llvmlite.binding as llvm

        llvm_version = ".".join(map(str, llvm.llvm_version_info))
        llvmlite_version = llvmlite.__version__
    except ImportError:
        llvm_version = llvmlite_version = "NOT-FOUND"
    import ember

    gpus = cuda_device_count()
    info = {
        "VERSION": getattr(ember, "__version__", _package_version("ember") or "unknown"),
        "PYTHON_VERSION": sys.version.split()[0],
        "PLATFORM": platform.platform(),
        "MACHINE": platform.machine(),
        "NUMPY_VERSION": numpy.__version__,
        "LLVMLITE_VERSION": llvmlite_version,
        "LLVM_VERSION": llvm_version,
        "USE_LLVM": "ON" if llvm_version != "NOT-FOUND" else "OFF",
        "USE_CUDA": "ON" if gpus > 0 else "OFF",
        "CUDA_DEVICE_COUNT": str(gpus),
        "USE_CUDA_PYTHON": "ON" if _package_version("cuda-python") else "OFF",
        "TORCH_VERSION": _package_version("torch") or "NOT-FOUND",
        "ML_DTYPES_VERSION": _package_version("ml_dtypes") or "NOT-FOUND",
    }
    return info

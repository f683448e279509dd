"""CUDA C → PTX with NVRTC, cached by a hash of the source and options.

Works without a GPU: NVRTC is a compiler library (the ``nvidia-cuda-nvrtc`` wheel).
Headers that NVRTC does not carry (``cuda_fp16.h``, ``cuda_bf16.h``) are looked up in
``EMBER_CUDA_INCLUDE``, ``$CUDA_HOME/include``, ``$CUDA_PATH/include``,
``/usr/local/cuda*/include`` and the ``nvidia`` wheels' include folders.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import sys
import threading

from .bindings import check, nvrtc
from .errors import INSTALL_HINT, CudaError, CudaUnavailableError

__all__ = ["compile_to_ptx", "compile_to_cubin", "supported_archs", "nvrtc_available", "find_cuda_include",
           "NVRTCError", "nvrtc_version"]

_CACHE: dict[str, str] = {}
_LOCK = threading.Lock()
MAX_CACHED = 512


class NVRTCError(CudaError):
    """NVRTC rejected the source; the message holds NVRTC's log."""


@functools.cache
def nvrtc_available() -> bool:
    """Whether NVRTC can be loaded (the bindings and libnvrtc are installed)."""
    try:
        nvrtc_version()
    except (CudaUnavailableError, CudaError, OSError, RuntimeError):
        return False
    return True


@functools.cache
def nvrtc_version() -> tuple[int, int]:
    try:
        return tuple(check(nvrtc().nvrtcVersion(), "nvrtcVersion"))
    except (OSError, RuntimeError) as err:
        if isinstance(err, (CudaUnavailableError, CudaError)):
            raise
        raise CudaUnavailableError(f"libnvrtc could not be loaded: {INSTALL_HINT} ({err})") from None


def _header_dirs() -> list[str]:
    dirs = []
    for env in ("EMBER_CUDA_INCLUDE", "CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(env)
        if root:
            dirs.append(root if env == "EMBER_CUDA_INCLUDE" else os.path.join(root, "include"))
    dirs += ["/usr/local/cuda/include"] + sorted(glob.glob("/usr/local/cuda-*/include"), reverse=True)
    for entry in sys.path:
        dirs += sorted(glob.glob(os.path.join(entry, "nvidia", "cu*", "include")), reverse=True)
        dirs.append(os.path.join(entry, "nvidia", "cuda_runtime", "include"))
    return dirs


@functools.cache
def find_cuda_include() -> str | None:
    """A folder holding ``cuda_fp16.h`` and ``cuda_bf16.h``, or None."""
    for folder in _header_dirs():
        if all(os.path.isfile(os.path.join(folder, h)) for h in ("cuda_fp16.h", "cuda_bf16.h")):
            return folder
    return None


def _arch_option(arch: str) -> bytes:
    digits = arch.removeprefix("sm_").removeprefix("compute_")
    if not digits.rstrip("af").isdigit():
        raise ValueError(f"compile_to_ptx: arch must look like 'sm_80', got {arch!r}")
    return f"--gpu-architecture=compute_{digits}".encode()


def compile_to_ptx(source: str, arch: str = "sm_80", options: tuple[str, ...] = ()) -> str:
    """PTX text for CUDA C ``source`` (cached); NVRTCError carries the compiler log."""
    if not isinstance(source, str):
        raise TypeError(f"compile_to_ptx: source must be a str, got {type(source).__name__}")
    opts = [_arch_option(arch), b"-default-device", b"--std=c++17"] + [o.encode() for o in options]
    if "cuda_fp16.h" in source or "cuda_bf16.h" in source:
        include = find_cuda_include()
        if include is None:
            raise CudaUnavailableError(
                "the kernel uses float16/bfloat16 but cuda_fp16.h / cuda_bf16.h were not found; install the "
                "CUDA toolkit headers (or pip install nvidia-cuda-runtime) or set EMBER_CUDA_INCLUDE")
        opts.append(f"-I{include}".encode())
    key = hashlib.sha256(source.encode() + b"\0" + b"\0".join(opts)).hexdigest()
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    ptx = _compile(source, opts)
    with _LOCK:
        _CACHE[key] = ptx
        while len(_CACHE) > MAX_CACHED:
            _CACHE.pop(next(iter(_CACHE)))
    return ptx


def _compile(source: str, opts: list[bytes]) -> str:
    nvrtc_version()  # a clear error when libnvrtc is missing
    lib = nvrtc()
    prog = check(lib.nvrtcCreateProgram(source.encode(), b"ember_kernels.cu", 0, [], []), "nvrtcCreateProgram")
    try:
        status = lib.nvrtcCompileProgram(prog, len(opts), opts)
        if int(status[0]) != 0:
            size = check(lib.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
            log = b" " * size
            check(lib.nvrtcGetProgramLog(prog, log), "nvrtcGetProgramLog")
            text = log.decode(errors="replace").rstrip("\0 \n")
            raise NVRTCError(f"NVRTC could not compile the generated CUDA source:\n{text}")
        size = check(lib.nvrtcGetPTXSize(prog), "nvrtcGetPTXSize")
        ptx = b" " * size
        check(lib.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
    finally:
        lib.nvrtcDestroyProgram(prog)
    return ptx.decode().rstrip("\0")


def compile_to_cubin(source: str, arch: str, options: tuple[str, ...] = ()) -> bytes:
    """A CUBIN for the real architecture ``arch`` ("sm_90"), for loading without PTX JIT."""
    opts = [_arch_option(arch).replace(b"compute_", b"sm_"), b"-default-device", b"--std=c++17"]
    opts += [o.encode() for o in options]
    if "cuda_fp16.h" in source or "cuda_bf16.h" in source:
        compile_to_ptx(source, arch, options)  # same header check and message
        opts.append(f"-I{find_cuda_include()}".encode())
    key = "cubin:" + hashlib.sha256(source.encode() + b"\0" + b"\0".join(opts)).hexdigest()
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    nvrtc_version()
    lib = nvrtc()
    prog = check(lib.nvrtcCreateProgram(source.encode(), b"ember_kernels.cu", 0, [], []), "nvrtcCreateProgram")
    try:
        status = lib.nvrtcCompileProgram(prog, len(opts), opts)
        if int(status[0]) != 0:
            size = check(lib.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
            log = b" " * size
            check(lib.nvrtcGetProgramLog(prog, log), "nvrtcGetProgramLog")
            raise NVRTCError(f"NVRTC could not compile the generated CUDA source:\n{log.decode(errors='replace')}")
        size = check(lib.nvrtcGetCUBINSize(prog), "nvrtcGetCUBINSize")
        cubin = b" " * size
        check(lib.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
    finally:
        lib.nvrtcDestroyProgram(prog)
    with _LOCK:
        _CACHE[key] = cubin
    return cubin


def supported_archs() -> list[int]:
    """The real architectures this NVRTC compiles for, e.g. [75, 80, 86, 89, 90, ...]."""
    return [int(a) for a in check(nvrtc().nvrtcGetSupportedArchs(), "nvrtcGetSupportedArchs")]

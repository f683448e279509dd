"""CUDA modules as files: ``CUDAHostModule.export_library`` and loading it back.

The library holds one read-only blob behind the symbol ``__ember_cuda_module``
(assembled with ``.incbin``): ``MAGIC | JSON`` with the host launchers (Python source),
each function's ``FunctionInfo``, the kernels' signatures, their CUDA C source and, when
NVRTC is installed at export time, their PTX for the module's architecture.  Extra
objects (a Relax VM program) are linked into the same ``.so``; ``.o`` writes the blob
object alone and ``.tar`` the objects with a manifest.  ``load_library`` (via
``load_cuda_module``) rebuilds the module without the compiler: at the first launch the
kernels come from NVRTC for the GPU's exact architecture when it is installed, else the
embedded PTX is handed to the driver.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile

from ..export.blob import blob_object, run_tool
from ..library import infos_from_json, infos_to_json
from .module import CUDAHostModule, CUDAModule, KernelSpec

__all__ = ["CUDA_SYMBOL", "export_cuda_library", "load_cuda_module", "encode_cuda_module", "decode_cuda_module"]

log = logging.getLogger(__name__)
CUDA_SYMBOL = "__ember_cuda_module"
MAGIC = b"EMBERCU1"


def encode_cuda_module(module: CUDAHostModule) -> bytes:
    """``module`` as bytes (PTX included when NVRTC can produce it)."""
    from .nvrtc import nvrtc_available

    dev = module.device_module
    ptx = dev.ptx
    if ptx is None and nvrtc_available():
        ptx = dev.get_source("ptx")
    elif ptx is None:
        log.warning("export_library: NVRTC is not installed, the library holds CUDA C but no PTX "
                    "(loading it will need NVRTC)")
    payload = {
        "host_source": module.host_source,
        "entry_points": module.entry_points,
        "infos": infos_to_json(module.infos),
        "kernels": {name: list(spec.param_types) for name, spec in dev.kernels.items()},
        "source": dev.source, "ptx": ptx, "arch": dev.arch, "options": list(dev.options),
    }
    return MAGIC + json.dumps(payload).encode()


def decode_cuda_module(data: bytes, where: str = "load_module") -> CUDAHostModule:
    """The module encoded by ``encode_cuda_module``."""
    if bytes(data[:8]) != MAGIC:
        raise ValueError(f"{where}: not an ember CUDA module (bad magic); the file is corrupt")
    try:
        p = json.loads(bytes(data[8:]))
        specs = {name: KernelSpec(name, tuple(types)) for name, types in p["kernels"].items()}
        device = CUDAModule(p["source"], specs, p["arch"], tuple(p["options"]), ptx=p["ptx"])
        return CUDAHostModule(p["host_source"], infos_from_json(p["infos"]), device, p["entry_points"])
    except (KeyError, TypeError, ValueError, SyntaxError) as err:
        raise ValueError(f"{where}: the CUDA module is corrupt ({type(err).__name__}: {err})") from None


def export_cuda_library(module: CUDAHostModule, file_name: str, cc: str | None = None,
                        options: tuple = ()) -> None:
    """Write ``module`` as a shared library (``.so``), an object (``.o``) or a ``.tar``."""
    file_name = os.fspath(file_name)
    ext = file_name.rsplit(".", 1)[-1]
    if ext not in ("so", "o", "tar"):
        raise ValueError(f"export_library: file_name {file_name!r}: expected a .so, .o or .tar name, got "
                         f"format {ext!r}")
    cc = cc or os.environ.get("CC", "cc")
    data = encode_cuda_module(module)
    with tempfile.TemporaryDirectory() as tmp:
        obj = blob_object(data, CUDA_SYMBOL, tmp, cc, "the CUDA module")
        if ext == "o":
            shutil.copyfile(obj, file_name)
        elif ext == "tar":
            from ..export.library import write_objects_tar

            write_objects_tar(file_name, [obj, *options])
        else:
            run_tool([cc, "-shared", "-o", file_name, obj, *options], "linking")
            from ..export.seal import seal

            seal(file_name)


def load_cuda_module(lib, path: str) -> CUDAHostModule | None:
    """The CUDA module in the loaded library ``lib`` (a ctypes CDLL), or None when it has none."""
    import ctypes

    try:
        size = ctypes.c_uint64.in_dll(lib, CUDA_SYMBOL + "_size").value
        start = ctypes.addressof(ctypes.c_char.in_dll(lib, CUDA_SYMBOL))
    except ValueError:
        return None
    module = decode_cuda_module(ctypes.string_at(start, size), f"load_module({path!r})")
    module._keepalive = lib
    return module

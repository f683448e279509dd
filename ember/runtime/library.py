"""Load compiled shared libraries: ``load_module(path)`` and the kernel-library loader.

A kernel library (written by a code generator's ``export_library``) carries, next to its
functions, the symbol ``__ember_module_info``: a NUL-terminated JSON list of each
function's ``FunctionInfo``.  A Relax executable's library also carries the VM program
(``__ember_vm_program``).  Loading needs only ctypes and the runtime, no compiler.
"""

from __future__ import annotations

import ctypes
import json
import os
from typing import TYPE_CHECKING

from .compiled_function import CompiledFunction
from .function_info import FunctionInfo, ParamInfo
from .module import Module

if TYPE_CHECKING:
    from .vm.executable import Executable

__all__ = ["METADATA_SYMBOL", "KERNEL_SYMBOL_PREFIX", "infos_from_json", "infos_to_json", "kernel_symbol",
           "load_library", "load_module"]

METADATA_SYMBOL = "__ember_module_info"
# A kernel named "tanh" must not define the C symbol "tanh": the libm function it (or an
# LLVM intrinsic lowered to libm) calls would resolve to the kernel itself.
KERNEL_SYMBOL_PREFIX = "__ember_fn_"


def kernel_symbol(name: str) -> str:
    """The native symbol of the compiled function ``name`` (never a C library name)."""
    return KERNEL_SYMBOL_PREFIX + name


def infos_to_json(infos: dict[str, FunctionInfo]) -> str:
    """The metadata text stored behind ``__ember_module_info``."""
    return json.dumps([
        {
            "name": info.name,
            "checks": list(info.checks),
            "params": [
                {"name": p.name, "kind": p.kind, "dtype": p.dtype, "shape": list(p.shape),
                 "device_type": p.device_type, "data_alignment": p.data_alignment, "written": p.written}
                for p in info.params
            ],
        }
        for info in infos.values()
    ])


def infos_from_json(text: str) -> dict[str, FunctionInfo]:
    """Parse the metadata written by ``infos_to_json``."""
    out = {}
    for entry in json.loads(text):
        params = tuple(ParamInfo(p["name"], p["kind"], p["dtype"], tuple(p["shape"]), p["device_type"],
                                 p["data_alignment"], written=p.get("written", False)) for p in entry["params"])
        out[entry["name"]] = FunctionInfo(entry["name"], params, tuple(entry["checks"]))
    return out


def load_library(path: str) -> Module:
    """Load a kernel library written by ``export_library`` as a runtime Module."""
    lib = ctypes.CDLL(os.path.abspath(path))
    from .cuda_driver.export import load_cuda_module  # a library of CUDA kernels (PTX inside)

    cuda = load_cuda_module(lib, path)
    if cuda is not None:
        return cuda
    try:
        meta = ctypes.c_char.in_dll(lib, METADATA_SYMBOL)
    except ValueError:
        raise ValueError(f"load_library: {path!r} has no {METADATA_SYMBOL} symbol; was it written by "
                         "ember's export_library?") from None
    infos = infos_from_json(ctypes.string_at(ctypes.addressof(meta)).decode())
    functions = {name: CompiledFunction(_symbol_address(lib, name), info, keepalive=lib)
                 for name, info in infos.items()}
    return Module(functions, type_key="llvm")


def _symbol_address(lib: ctypes.CDLL, name: str) -> int:
    try:
        fn = getattr(lib, kernel_symbol(name))
    except AttributeError:  # libraries exported before kernel symbols were prefixed
        fn = getattr(lib, name)
    return ctypes.cast(fn, ctypes.c_void_p).value


def load_module(path: str, fmt: str = "") -> Module | Executable:
    """TVM's ``tvm.runtime.load_module``: a kernel Module, or a Relax VM Executable when the
    library holds a VM program (``ex.export_library``).  A ``.tar`` of objects is linked
    first.  The file is checked before it is loaded (``export.seal``): a truncated or
    modified library raises ``ValueError``, it never reaches the dynamic loader."""
    from .export.seal import LibraryFileError, check_library_file

    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"load_module: path {path!r} does not exist")
    ext = fmt or path.rsplit(".", 1)[-1]
    if ext == "tar":
        from .export.library import load_tar

        path = load_tar(path)
        ext = "so"
    if ext not in ("so", "dylib", "dll"):
        raise ValueError(f"load_module: path {path!r}: expected a shared library (.so) or a .tar written by "
                         f"export_library, got format {ext!r}")
    check_library_file(path, "load_module")
    from .vm.serialize import PROGRAM_SYMBOL, load_executable

    try:
        lib = ctypes.CDLL(os.path.abspath(path))
    except OSError as err:
        raise LibraryFileError(f"load_module: {path!r} could not be loaded: {err}") from None
    try:
        ctypes.c_char.in_dll(lib, PROGRAM_SYMBOL)
    except ValueError:
        return load_library(path)
    return load_executable(path, kernel_loader=load_library)

"""Export compiled LLVM modules as shared libraries, and load them back.

A library holds the generated functions (the packed ABI) and one extra symbol,
``__ember_module_info``: a NUL-terminated JSON list of each function's
``FunctionInfo`` (parameters and check messages), so a loader needs nothing else.
Loading lives in the runtime (``ember.runtime.library``: ``load_library``, behind
``ember.runtime.load_module``); its names are re-exported here.
"""

from __future__ import annotations

import os
import subprocess
import tempfile

from llvmlite import ir

from ember.runtime import FunctionInfo
from ember.runtime.library import METADATA_SYMBOL, infos_from_json, infos_to_json, load_library

__all__ = ["METADATA_SYMBOL", "add_metadata", "export_library", "load_library", "infos_to_json", "infos_from_json"]

def add_metadata(module: ir.Module, infos: dict[str, FunctionInfo]) -> None:
    """Add the ``__ember_module_info`` JSON string to ``module``."""
    data = bytearray(infos_to_json(infos).encode()) + b"\0"
    ty = ir.ArrayType(ir.IntType(8), len(data))
    var = ir.GlobalVariable(module, ty, METADATA_SYMBOL)
    var.global_constant = True
    var.initializer = ir.Constant(ty, data)


def export_library(module, file_name: str, cc: str | None = None, options: tuple[str, ...] = ()) -> None:
    """Write ``module`` (an LLVMModule) as a shared library (or ``.o`` / ``.ll`` / ``.s``)."""
    from .jit import compile_object

    ext = file_name.rsplit(".", 1)[-1]
    if ext == "tar":  # the object code and a manifest; runtime.load_module links it
        from ember.runtime.export.library import write_objects_tar

        with tempfile.TemporaryDirectory() as tmp:
            export_library(module, os.path.join(tmp, "kernels.o"))
            write_objects_tar(file_name, [os.path.join(tmp, "kernels.o"), *options])
        return
    if ext in ("ll", "s"):
        module.save(file_name, ext)
        return
    obj = compile_object(module.compiled.ll_unopt, module.target, int(module.target.attrs.get("opt-level", 3)))
    if ext == "o":
        with open(file_name, "wb") as f:
            f.write(obj)
        return
    libs = ["-lm"] + (["-lgomp"] if "GOMP_parallel" in module.compiled.ll_unopt else [])
    with tempfile.TemporaryDirectory() as tmp:
        obj_path = os.path.join(tmp, "lib.o")
        with open(obj_path, "wb") as f:
            f.write(obj)
        cmd = [cc or os.environ.get("CC", "cc"), "-shared", "-o", file_name, obj_path, *libs, *options]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"export_library: linking {file_name!r} failed ({' '.join(cmd)}):\n{done.stderr}")
    from ember.runtime.export.seal import seal

    seal(file_name)  # integrity trailer: load_module refuses truncated or modified files

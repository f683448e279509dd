"""Export compiled LLVM modules as shared libraries, and load them back.

A library holds the generated functions (the packed ABI) and one extra symbol,
``__ember_module_info``: a NUL-terminated JSON list of each function's
``FunctionInfo`` (parameters and check messages), so a loader needs nothing else.
``load_library`` only uses ``ember.runtime`` and could move there as the ``.so``
loader of ``ember.runtime.load_module``.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import tempfile

from llvmlite import ir

from ember.runtime import CompiledFunction, FunctionInfo, Module, ParamInfo

__all__ = ["METADATA_SYMBOL", "add_metadata", "export_library", "load_library", "infos_to_json", "infos_from_json"]

METADATA_SYMBOL = "__ember_module_info"


def infos_to_json(infos: dict[str, FunctionInfo]) -> str:
    return json.dumps([
        {
            "name": info.name,
            "checks": list(info.checks),
            "params": [
                {"name": p.name, "kind": p.kind, "dtype": p.dtype, "shape": list(p.shape),
                 "device_type": p.device_type, "data_alignment": p.data_alignment}
                for p in info.params
            ],
        }
        for info in infos.values()
    ])


def infos_from_json(text: str) -> dict[str, FunctionInfo]:
    out = {}
    for entry in json.loads(text):
        params = tuple(ParamInfo(p["name"], p["kind"], p["dtype"], tuple(p["shape"]), p["device_type"],
                                 p["data_alignment"]) for p in entry["params"])
        out[entry["name"]] = FunctionInfo(entry["name"], params, tuple(entry["checks"]))
    return out


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


def load_library(path: str) -> Module:
    """Load a library written by ``export_library`` as a runtime Module."""
    lib = ctypes.CDLL(os.path.abspath(path))
    try:
        meta = ctypes.c_char.in_dll(lib, METADATA_SYMBOL)
    except ValueError:
        raise ValueError(f"load_library: {path!r} has no {METADATA_SYMBOL} symbol; was it written by "
                         "ember's export_library?") from None
    infos = infos_from_json(ctypes.string_at(ctypes.addressof(meta)).decode())
    functions = {
        name: CompiledFunction(ctypes.cast(getattr(lib, name), ctypes.c_void_p).value, info, keepalive=lib)
        for name, info in infos.items()
    }
    return Module(functions, type_key="llvm")

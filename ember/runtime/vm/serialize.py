"""The VM program's byte format, and ``load_executable(path)`` for exported libraries.

An exported library (``ember.runtime.export.library``) is the kernels' own shared library
with one more object linked in: the VM program, a byte string
behind the symbol ``__ember_vm_program`` (length in ``__ember_vm_program_size``),
assembled with ``.incbin`` so large constants cost nothing to embed.  The program is
``MAGIC | JSON length | JSON (functions, instructions, constant kinds, plans) | tensors``:
the constant arrays in the safetensors layout (``ember.runtime.safetensors``, no pickle),
64-byte aligned so native code can use them in place.  Version 1 programs (.npz
constants) still load.  Loading needs the kernels' loader, passed in by the caller
(``ember.relax.load_executable`` passes the LLVM one), so this module stays free of
compiler imports.
"""

from __future__ import annotations

import ctypes
import io
import json
import os
from collections.abc import Callable

import numpy as np

from .. import safetensors
from ..ndarray import NDArray, array
from .executable import Arg, Call, Executable, Goto, If, Ret, VMFunction

__all__ = ["load_executable", "encode_program", "decode_program"]

MAGIC = b"EMBERVM2"
MAGIC_V1 = b"EMBERVM1"
PROGRAM_SYMBOL = "__ember_vm_program"


def _enc(value):
    if isinstance(value, tuple):
        return {"tuple": [_enc(v) for v in value]}
    return value


def _dec(value):
    if isinstance(value, dict):
        return tuple(_dec(v) for v in value["tuple"])
    return value


def _instr(i) -> list:
    if isinstance(i, Call):
        return ["call", i.dst, i.func, [[a.kind, _enc(a.value)] for a in i.args]]
    if isinstance(i, Ret):
        return ["ret", i.reg]
    if isinstance(i, Goto):
        return ["goto", i.offset]
    return ["if", i.cond, i.false_offset]


_DECODE = {
    "call": lambda e: Call(e[1], e[2], tuple(Arg(k, _dec(v)) for k, v in e[3])),
    "ret": lambda e: Ret(e[1]), "goto": lambda e: Goto(e[1]), "if": lambda e: If(e[1], e[2]),
}


def encode_program(exe: Executable) -> bytes:
    """The VM program of ``exe`` (without kernels) as bytes."""
    arrays, kinds = {}, []
    for i, c in enumerate(exe.constants):
        if isinstance(c, NDArray | np.ndarray):
            arrays[f"c{i}"] = c.numpy() if isinstance(c, NDArray) else c
            kinds.append({"array": f"c{i}"})
        else:
            kinds.append({"value": _enc(c)})
    header = json.dumps({
        "functions": [{"name": f.name, "params": list(f.params), "num_regs": f.num_regs,
                       "instrs": [_instr(i) for i in f.instrs]} for f in exe.functions.values()],
        "constants": kinds,
        "memory_plans": {name: str(plan) for name, plan in exe.memory_plans.items()},
        "metadata": exe.metadata,
    }).encode()
    header += b" " * (-(16 + len(header)) % 64)  # the tensors start 64-byte aligned
    return MAGIC + len(header).to_bytes(8, "little") + header + safetensors.dumps(arrays, align=64)


def decode_program(data: bytes, kernels=None) -> Executable:
    """The Executable encoded by ``encode_program`` (``kernels``: its runtime Module)."""
    magic = bytes(data[:8])
    if magic not in (MAGIC, MAGIC_V1):
        raise ValueError("load_executable: not an ember VM program (bad magic); the file is corrupt or was "
                         "not written by export_library")
    size = int.from_bytes(bytes(data[8:16]), "little")
    if 16 + size > len(data):
        raise ValueError(f"load_executable: the VM program is truncated (header of {size} bytes, "
                         f"{len(data)} bytes in all)")
    try:
        header = json.loads(data[16:16 + size])
        if magic == MAGIC:
            arrays = safetensors.loads(data[16 + size:], what="load_executable: the VM program's constants")
        else:
            arrays = np.load(io.BytesIO(data[16 + size:]), allow_pickle=False)
        constants = [array(arrays[k["array"]]) if "array" in k else _dec(k["value"])
                     for k in header["constants"]]
        functions = {
            f["name"]: VMFunction(f["name"], tuple(f["params"]),
                                  tuple(_DECODE[e[0]](e) for e in f["instrs"]), f["num_regs"])
            for f in header["functions"]
        }
    except ValueError as err:
        if str(err).startswith("load_executable"):
            raise
        raise ValueError(f"load_executable: the VM program is corrupt ({err})") from None
    except (KeyError, TypeError, IndexError, OSError, UnicodeDecodeError) as err:
        raise ValueError(f"load_executable: the VM program is corrupt ({type(err).__name__}: {err})") from None
    return Executable(functions, constants, kernels, dict(header["memory_plans"]), dict(header.get("metadata", {})))


def load_executable(path: str, kernel_loader: Callable[[str], object] | None = None) -> Executable:
    """The Executable in the library ``path``; ``kernel_loader(path)`` loads its kernels."""
    lib = ctypes.CDLL(os.path.abspath(path))
    try:
        size = ctypes.c_uint64.in_dll(lib, PROGRAM_SYMBOL + "_size").value
        start = ctypes.addressof(ctypes.c_char.in_dll(lib, PROGRAM_SYMBOL))
    except ValueError:
        raise ValueError(f"load_executable: {path!r} has no {PROGRAM_SYMBOL} symbol; was it written by "
                         "Executable.export_library?") from None
    data = ctypes.string_at(start, size)
    kernels = None
    if kernel_loader is not None:
        try:
            kernels = kernel_loader(path)
        except ValueError:  # a library without kernels
            kernels = None
    return decode_program(data, kernels)

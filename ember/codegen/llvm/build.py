"""build_llvm: lowered PrimFuncs → packed API → LLVM IR → JIT → an ``LLVMModule``.

Compiled objects are cached in memory, keyed by the structural hash of every packed
PrimFunc, its exported name, and the target string (a hit is confirmed with
structural equality), so rebuilding the same kernel for the same target reuses the
machine code.  The cache keeps the ``MAX_CACHED`` most recently used entries.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections import OrderedDict

from ember.ir import IRModule, structural_equal, structural_hash
from ember.runtime import CompiledFunction, FunctionInfo, Module
from ember.runtime.library import kernel_symbol
from ember.tir import PrimFunc

from ..packed_api import make_packed_api
from . import codegen as _codegen
from .codegen import CodeGenLLVM
from .export import add_metadata, export_library
from .jit import CompiledObject, compile_ir

__all__ = ["build_llvm", "LLVMModule", "clear_cache", "cache_info"]

log = logging.getLogger(__name__)
MAX_CACHED = 1024
# key → (packed functions, compiled object, infos)
_CACHE: OrderedDict[tuple, tuple[list, CompiledObject, dict[str, FunctionInfo]]] = OrderedDict()
_CACHE_LOCK = threading.Lock()
_STATS = {"hits": 0, "misses": 0}


class LLVMModule(Module):
    """A runtime Module of JIT-compiled functions, with the LLVM IR and assembly it came from."""

    def __init__(self, compiled: CompiledObject, infos: dict[str, FunctionInfo], target):
        functions = {} if compiled.engine is None else {
            name: CompiledFunction(compiled.address(kernel_symbol(name)), info, keepalive=compiled)
            for name, info in infos.items()
        }
        super().__init__(functions, type_key="llvm")
        self.compiled = compiled
        self.target = target
        self.infos = infos
        self._entry = functions.get(self.entry_name) if self.entry_name else None

    def get_function(self, name: str, query_imports: bool = False):
        if self.compiled.engine is None and name in self.infos:
            raise RuntimeError(
                f"{name!r} was compiled for {self.target.mtriple}, which cannot run in this process; "
                "use get_source('asm') or export_library('kernel.o') (or .so with a cross cc=...)"
            )
        return super().get_function(name, query_imports)

    def __call__(self, *args):
        entry = self._entry
        if entry is None:
            if self.compiled.engine is None and self.entry_name is None and len(self.infos) == 1:
                return self.get_function(next(iter(self.infos)))(*args)
            return super().__call__(*args)
        return entry(*args)

    def get_source(self, fmt: str = "ll") -> str:
        """``"ll"`` (optimised LLVM IR, the default), ``"ll-unopt"`` or ``"asm"``."""
        fmt = fmt or "ll"
        if fmt in ("ll", "llvm"):
            return self.compiled.ll
        if fmt == "ll-unopt":
            return self.compiled.ll_unopt
        if fmt in ("asm", "s"):
            return self.compiled.assembly()
        raise ValueError(f"get_source(fmt={fmt!r}): expected one of 'll', 'll-unopt', 'asm'")

    @property
    def source_formats(self) -> list[str]:
        return ["ll", "ll-unopt", "asm"]

    def save(self, file_name: str, fmt: str = "") -> None:
        """Write LLVM IR (``.ll``), assembly (``.s``) or an object file (``.o``)."""
        fmt = fmt or file_name.rsplit(".", 1)[-1]
        if fmt in ("o", "obj"):
            with open(file_name, "wb") as f:
                f.write(self.compiled.object_code())
            return
        with open(file_name, "w") as f:
            f.write(self.get_source("asm" if fmt == "s" else "ll"))

    def export_library(self, file_name: str, fcompile=None, cc: str | None = None, options=(), **kwargs) -> None:
        """Write a shared library (``.so``), an object (``.o``), LLVM IR (``.ll``) or assembly
        (``.s``); load a ``.so`` back with ``ember.codegen.llvm.load_library``."""
        export_library(self, file_name, cc=cc, options=tuple(options))

    def __repr__(self) -> str:
        return f"LLVMModule(target={str(self.target)!r}, functions=[{', '.join(self.function_names)}])"


def function_name(gv, func: PrimFunc) -> str:
    """The exported name: the ``global_symbol`` attribute, else the GlobalVar's name."""
    return str(func.attrs.get("global_symbol") or gv.name_hint)


_DEEP_IR_RECURSION_LIMIT = 10_000  # ~400 buffer arguments; the walks recurse in Python frames


def build_llvm(mod: IRModule, target) -> LLVMModule:
    """Compile the (lowered) PrimFuncs of ``mod`` for the CPU ``target``."""
    # The packed-API prologue nests a LetStmt / AssertStmt per argument check, so a kernel with
    # hundreds of buffers is thousands of levels deep, beyond Python's default recursion limit
    # (1000) for the recursive IR walks (structural hash and equality).  The limit is raised,
    # never lowered again: restoring it would break a build running deep in another thread.
    if sys.getrecursionlimit() < _DEEP_IR_RECURSION_LIMIT:
        sys.setrecursionlimit(_DEEP_IR_RECURSION_LIMIT)
    return _build_llvm(mod, target)


def _build_llvm(mod: IRModule, target) -> LLVMModule:
    packed: list[tuple[str, PrimFunc]] = []
    for gv, func in mod.functions.items():
        if not isinstance(func, PrimFunc):
            raise TypeError(f"build: the IRModule holds {type(func).__name__} {gv.name_hint!r}; only PrimFuncs "
                            "can be built for llvm (use relax.build for Relax functions)")
        name = function_name(gv, func)
        packed.append((name, make_packed_api(func, name, device_type=1)))
    key = (str(target), _codegen.settings_key(), tuple((name, structural_hash(f)) for name, f in packed))
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
    if hit is not None and all(structural_equal(a, b) for (_, a), (_, b) in zip(hit[0], packed)):
        _STATS["hits"] += 1
        log.debug("build cache hit for %s", [n for n, _ in packed])
        return LLVMModule(hit[1], hit[2], target)
    _STATS["misses"] += 1
    cg = CodeGenLLVM(target)
    infos: dict[str, FunctionInfo] = {}
    for name, func in packed:
        checks = cg.add_function(func, name)
        infos[name] = FunctionInfo(name, func.attrs["ember.param_info"], tuple(checks))
    add_metadata(cg.module, infos)
    compiled = compile_ir(str(cg.module), target, int(target.attrs.get("opt-level", 3)))
    with _CACHE_LOCK:
        _CACHE[key] = (packed, compiled, infos)
        while len(_CACHE) > MAX_CACHED:
            _CACHE.popitem(last=False)
    return LLVMModule(compiled, infos, target)


def clear_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()


def cache_info() -> dict[str, int]:
    return {**_STATS, "entries": len(_CACHE)}

"""From LLVM IR text to native code in this process: target machine, optimisation, MCJIT.

``compile_ir`` parses the module, runs LLVM's ``default<O3>`` pipeline (new pass
manager, loop and SLP vectorisers on) for the target's CPU and features, and JITs it.
The runtime libraries generated code calls are loaded once: libm (math not mapped to
LLVM intrinsics) and libgomp (parallel loops).
"""

from __future__ import annotations

import ctypes.util
import functools
import logging
import threading
from dataclasses import dataclass

import llvmlite.binding as llvm

__all__ = [
    "CompiledObject", "compile_ir", "compile_object", "target_machine", "load_runtime_libraries", "runs_here",
]

_LOCK = threading.Lock()
log = logging.getLogger(__name__)


@functools.cache
def _init() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_all_targets()  # cross-compilation (-mtriple=aarch64-…) emits code only
    llvm.initialize_all_asmprinters()
    load_runtime_libraries()


def runs_here(triple: str) -> bool:
    """Whether code for ``triple`` can run in this process (same CPU architecture)."""
    return triple.split("-")[0] == llvm.get_process_triple().split("-")[0]


@functools.cache
def load_runtime_libraries() -> dict[str, str | None]:
    """Make libm and libgomp symbols resolvable by the JIT; returns what was loaded.

    (``import ember`` has bounded libgomp's spin count: ``ember.support.openmp_env``.)
    """
    loaded = {}
    for stem, fallback in (("m", "libm.so.6"), ("gomp", "libgomp.so.1")):
        name = ctypes.util.find_library(stem) or fallback
        try:
            llvm.load_library_permanently(name)
            loaded[stem] = name
            if stem == "gomp":  # the team size parallel kernels ask for (runtime.set_num_threads)
                from ember.runtime.threading import apply_to_openmp

                apply_to_openmp()
        except RuntimeError:
            loaded[stem] = None
    return loaded


def target_machine(triple: str, cpu: str, features: str, opt_level: int = 3, pic: bool = False) -> llvm.TargetMachine:
    """A new TargetMachine (never shared: an MCJIT engine takes ownership of its machine)."""
    _init()
    target = llvm.Target.from_triple(triple)
    if pic:  # position-independent code for shared libraries
        return target.create_target_machine(cpu=cpu, features=features, opt=opt_level, reloc="pic",
                                            codemodel="default")
    return target.create_target_machine(cpu=cpu, features=features, opt=opt_level, reloc="default",
                                        codemodel="jitdefault")


def machine_for(target, pic: bool = False) -> llvm.TargetMachine:
    """The LLVM target machine for an ember ``Target`` (host CPU unless -mcpu/-mtriple)."""
    return target_machine(target.mtriple, target.mcpu or "", ",".join(target.mattr),
                          int(target.attrs.get("opt-level", 3)), pic)


@dataclass
class CompiledObject:
    """JIT-compiled code: the engine (owns the memory), the optimised module and sources."""

    engine: object
    module: object
    ll_unopt: str
    ll: str
    machine: object

    def address(self, name: str) -> int:
        if self.engine is None:
            raise RuntimeError(f"{name!r} was compiled for another architecture and cannot run here")
        return self.engine.get_function_address(name)

    def assembly(self) -> str:
        with _LOCK:
            return self.machine.emit_assembly(llvm.parse_assembly(self.ll))

    def object_code(self) -> bytes:
        with _LOCK:
            return self.machine.emit_object(llvm.parse_assembly(self.ll))


# Pipelines tried in order when LLVM's own optimizer breaks a function (an LLVM bug: the
# SLP vectorizer of LLVM 22 can emit "Instruction does not dominate all uses" for small
# reduction nests, which would abort the process in code generation).
_FALLBACKS = ({"slp_vectorization": False}, {"slp_vectorization": False, "loop_vectorization": False})


def optimize(module: llvm.ModuleRef, machine: llvm.TargetMachine, opt_level: int = 3) -> llvm.ModuleRef:
    """Optimise ``module`` in place and verify the result.  If LLVM's pipeline produced broken
    IR, the module is re-parsed from its text before optimisation and optimised again with
    the SLP (then also the loop) vectorizer off; returns the module to use."""
    text = str(module)
    _run_pipeline(module, machine, opt_level, {})
    for fallback in _FALLBACKS:
        try:
            module.verify()
            return module
        except RuntimeError as err:
            log.debug("LLVM's optimizer broke the module (%s); retrying with %s", str(err).splitlines()[0], fallback)
        module = llvm.parse_assembly(text)
        module.triple, module.data_layout = machine.triple, str(machine.target_data)
        _run_pipeline(module, machine, opt_level, fallback)
    module.verify()  # still broken: raise (a RuntimeError) rather than abort in code generation
    return module


def _run_pipeline(module: llvm.ModuleRef, machine: llvm.TargetMachine, opt_level: int, off: dict) -> None:
    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    pto.loop_vectorization = opt_level >= 2 and off.get("loop_vectorization", True)
    pto.slp_vectorization = opt_level >= 2 and off.get("slp_vectorization", True)
    pto.loop_unrolling = opt_level >= 2
    pto.loop_interleaving = opt_level >= 2
    pb = llvm.create_pass_builder(machine, pto)
    pb.getModulePassManager().run(module, pb)


def compile_object(text: str, target, opt_level: int = 3) -> bytes:
    """Position-independent object code for ``text`` (for ``export_library``), kept in the
    disk cache too: exporting the same kernels again costs no LLVM time."""
    from . import disk_cache

    key = disk_cache.cache_key("pic-object\0" + text, target.mtriple, target.mcpu or "", ",".join(target.mattr),
                               opt_level)
    hit = disk_cache.load(key)
    if hit is not None:
        return hit[0]
    machine = machine_for(target, pic=True)
    with _LOCK:
        module = llvm.parse_assembly(text)
        module.triple = machine.triple
        module.data_layout = str(machine.target_data)
        module = optimize(module, machine, opt_level)
        obj = machine.emit_object(module)
    disk_cache.store(key, obj, "")
    return obj


def compile_ir(text: str, target, opt_level: int = 3) -> CompiledObject:
    """Parse, verify, optimise and JIT ``text`` for ``target`` (reusing the disk cache)."""
    from . import disk_cache

    cpu, features = target.mcpu or "", ",".join(target.mattr)
    machine = target_machine(target.mtriple, cpu, features, opt_level)
    if not runs_here(target.mtriple):
        return _cross_compile(text, machine, opt_level)
    key = disk_cache.cache_key(text, target.mtriple, cpu, features, opt_level)
    hit = disk_cache.load(key)
    with _LOCK:  # LLVM's global context is shared
        if hit is not None:
            engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine)
            engine.add_object_file(llvm.ObjectFileRef.from_data(hit[0]))
            engine.finalize_object()
            return CompiledObject(engine, None, text, hit[1], machine)
        module = llvm.parse_assembly(text)
        module.triple = machine.triple
        module.data_layout = str(machine.target_data)
        module.verify()
        module = optimize(module, machine, opt_level)
        ll = str(module)
        engine = llvm.create_mcjit_compiler(module, machine)
        objects: list[bytes] = []
        engine.set_object_cache(notify_func=lambda _mod, buf: objects.append(bytes(buf)))
        engine.finalize_object()
        engine.run_static_constructors()
    if objects:
        disk_cache.store(key, objects[0], ll)
    return CompiledObject(engine, module, text, ll, machine)


def _cross_compile(text: str, machine, opt_level: int) -> CompiledObject:
    """Optimise for a foreign architecture: sources and object code, nothing to run."""
    with _LOCK:
        module = llvm.parse_assembly(text)
        module.triple = machine.triple
        module.data_layout = str(machine.target_data)
        module.verify()
        module = optimize(module, machine, opt_level)
        return CompiledObject(None, module, text, str(module), machine)

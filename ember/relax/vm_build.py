"""``relax.build``: compile a Relax IRModule into a VM ``Executable``.

Steps: bind ``params`` to constants, run the lowering pipeline ("default_build"
unless told otherwise), then the VM code generator (``backend.vm_codegen``), which
compiles every PrimFunc of the module with ``ember.build`` into one kernel module.
Run the result with ``relax.VirtualMachine(ex, ember.cpu())``; a ``"cuda"`` target builds
the kernels with the CUDA code generator (scheduled by ``dlight.gpu`` unless told
otherwise) for ``relax.VirtualMachine(ex, ember.cuda())``.  The memory plans
recorded by StaticPlanBlockMemory are kept in ``ex.memory_plans``.  ``ex.export_library``
writes a shared library that ``load_executable`` reads back; ``compile`` is ``ember.compile``.
"""

from __future__ import annotations

from typing import Any

from ember.ir import IRModule
from ember.runtime.vm import Executable, VirtualMachine
from ember.target import Target
from ember.transform import Pass

from .backend.vm_codegen import codegen
from .expr import Function
from .transform.bind_params import bind_params
from .transform.static_plan_block_memory import PLAN_ATTR

__all__ = ["build", "compile", "load_executable", "bind_params", "Executable", "VirtualMachine"]


_CPU_KINDS = ("llvm", "c")
_GPU_KINDS = ("cuda",)


def _pipeline(pipeline) -> Pass | None:
    if pipeline is None or isinstance(pipeline, Pass) or callable(pipeline):
        return pipeline
    from .pipeline import get_pipeline

    return get_pipeline(pipeline)


def build(mod: IRModule | Function, target: Any = None, params: dict | None = None,
          pipeline: str | Pass | None = "default_build", exec_mode: str = "bytecode",
          system_lib: bool | None = None, relax_pipeline: Any = "default", tir_pipeline: Any = None,
          default_schedule: bool | None = None) -> Executable:
    """Compile ``mod`` for ``target`` (default: the current target, else "llvm").

    ``pipeline``: the lowering to the VM — a pipeline name, a Pass, or None when ``mod``
    is already lowered.  ``relax_pipeline`` (TVM's name) runs first: a Pass, a pipeline
    name, None for nothing, or "default": the target's default graph passes
    (``get_default_pipeline``) when the module still has high-level operators, as TVM's
    ``relax.build`` legalizes them itself.  ``default_schedule`` (default: PassContext config
    ``relax.build.default_schedule``, else True) schedules kernels nobody scheduled with
    ``ember.dlight``'s CPU rules (``dlight.gpu``'s default rules for a GPU target).
    """
    if isinstance(mod, Function):
        mod = IRModule.from_expr(mod)
    if not isinstance(mod, IRModule):
        raise TypeError(f"relax.build: mod must be an IRModule or relax.Function, got {type(mod).__name__}")
    if target is None:
        target = Target.current() or Target("llvm")
    elif not isinstance(target, Target):
        target = Target(target)
    if target.kind.name not in _CPU_KINDS + _GPU_KINDS:
        raise NotImplementedError(
            f"relax.build: target kind {target.kind.name!r} is not supported (use one of "
            f"{', '.join(_CPU_KINDS + _GPU_KINDS)})"
        )
    if params:
        mod = bind_params(mod, params)
    if isinstance(relax_pipeline, str) and relax_pipeline == "default":
        from .pipeline import _high_level_ops, get_default_pipeline

        relax_pipeline = get_default_pipeline(target) if _high_level_ops(mod) else None
    for stage in (relax_pipeline, pipeline):
        stage = _pipeline(stage)
        if stage is not None:
            mod = stage(mod)
    if target.kind.name in _GPU_KINDS:
        exe = codegen(_default_schedule(mod, target, default_schedule), target)
    else:
        exe = _codegen_cpu(mod, target, default_schedule)
    exe.memory_plans = dict(mod.attrs.get(PLAN_ATTR) or {})
    return exe


def _codegen_cpu(mod: IRModule, target: Target, default_schedule: bool | None) -> Executable:
    """The VM code, and the kernels it calls scheduled, lowered and compiled (or taken from
    ``build_cache`` when the same unscheduled kernels were built before for this target and config)."""
    from . import build_cache

    def build_kernels(prims: IRModule, target: Target):
        key = build_cache.make_key(prims, target, _schedules(target, default_schedule))
        kernels = build_cache.lookup(key, prims)
        if kernels is None:
            from ember.driver import build as tir_build

            kernels = tir_build(_default_schedule(prims, target, default_schedule), target=target)
            build_cache.store(key, prims, kernels)
        return kernels

    return codegen(mod, target, build_kernels=build_kernels)


def _schedules(target: Target, enabled: bool | None) -> bool:
    """Whether ``_default_schedule`` schedules kernels for ``target``."""
    if enabled is None:
        from ember.transform import PassContext

        enabled = bool(PassContext.current().config.get("relax.build.default_schedule", True))
    return bool(enabled) and target.kind.name in ("llvm",) + _GPU_KINDS


def _default_schedule(mod: IRModule, target: Target, enabled: bool | None) -> IRModule:
    """Unscheduled PrimFuncs scheduled by ember.dlight's CPU rules (llvm) or GPU rules (cuda)."""
    if not _schedules(target, enabled):
        return mod
    from ember.dlight import ApplyDefaultSchedule, cpu, gpu

    if target.kind.name in _GPU_KINDS:
        return ApplyDefaultSchedule(*gpu.default_rules(), target=target)(mod)

    return ApplyDefaultSchedule(*cpu.default_rules(), target=target)(mod)


def compile(mod: Any, target: Any = None, **kwargs) -> Any:  # noqa: A001 - TVM's name (tvm.compile)
    """``ember.compile``: ``relax.build`` for modules with Relax functions, else ``ember.build``."""
    if isinstance(mod, Function) or (isinstance(mod, IRModule) and any(
            isinstance(f, Function) for f in mod.functions.values())):
        return build(mod, target, **kwargs)
    from ember.driver import build as tir_build

    return tir_build(mod, target=target, **kwargs)


def load_executable(path: str) -> Executable:
    """An Executable written by ``ex.export_library(path)`` (kernels loaded with the LLVM loader)."""
    from ember.codegen.llvm.export import load_library
    from ember.runtime.vm.serialize import load_executable as load

    return load(path, kernel_loader=load_library)

"""build_cuda: lowered PrimFuncs → kernels (CUDA C) + host launchers → a ``CUDAHostModule``.

For each PrimFunc: check that global memory is only touched by GPU threads
(``verify_memory``) and that the launch fits the target (``verify_gpu_code``), cut
it into kernels and a host launcher, insert ``__syncthreads`` where shared memory
is handed between threads (``ThreadSync``), and print.  ``compile_to_ptx(mod)`` is
the short way to PTX (NVRTC; no GPU needed).
"""

from __future__ import annotations

import logging

from ember.ir import IRModule
from ember.runtime import FunctionInfo
from ember.runtime.cuda_driver import CUDAHostModule, CUDAModule, KernelSpec
from ember.tir import PrimFunc
from ember.tir.analysis.verify_memory import verify_memory

from ..packed_api import make_packed_api
from .codegen import CodeGenCUDA
from .host import HOST_PRELUDE, HostPrinter

__all__ = ["build_cuda", "compile_to_ptx", "cuda_arch"]

log = logging.getLogger(__name__)
DEFAULT_ARCH = "sm_80"


def cuda_arch(target) -> str:
    """``-arch`` of the target, else the first GPU's, else ``sm_80``."""
    arch = getattr(target, "attrs", {}).get("arch") if target is not None else None
    if arch:
        return str(arch)
    try:
        from ember.runtime.cuda_driver.driver import compute_capability, why_unavailable

        if why_unavailable(0) is None:
            major, minor = compute_capability(0)
            return f"sm_{major}{minor}"
    except Exception as err:  # no usable GPU: compile for the default architecture
        log.debug("no GPU architecture detected (%s); using %s", err, DEFAULT_ARCH)
    return DEFAULT_ARCH


def _function_name(gv, func: PrimFunc) -> str:
    return str(func.attrs.get("global_symbol") or gv.name_hint)


def build_cuda(mod: IRModule, target) -> CUDAHostModule:
    """Compile the lowered PrimFuncs of ``mod`` for the CUDA ``target``."""
    from ember.tir.analysis.verify_gpu_code import check_gpu_code

    codegen = CodeGenCUDA(target)
    host_parts = [HOST_PRELUDE]
    infos: dict[str, FunctionInfo] = {}
    entry_points: dict[str, str] = {}
    kernel_infos: dict[str, dict] = {}
    for gv, func in mod.functions.items():
        if not isinstance(func, PrimFunc):
            raise TypeError(f"build: the IRModule holds {type(func).__name__} {gv.name_hint!r}; only PrimFuncs "
                            "can be built for cuda (use relax.build for Relax functions)")
        name = _function_name(gv, func)
        verify_memory(func, name)
        check_gpu_code(func, target, name)
        packed = make_packed_api(func, name, device_type=2)
        infos[name] = FunctionInfo(name, packed.attrs["ember.param_info"], ())
        printer = HostPrinter(name, func, codegen, kernel_infos)
        host_parts.append(printer.print())
        entry_points[name] = printer.py_name
    specs = {k: KernelSpec(k, tuple(v["param_types"])) for k, v in kernel_infos.items()}
    device_module = CUDAModule(codegen.source(), specs, cuda_arch(target))
    return CUDAHostModule("\n\n".join(host_parts), infos, device_module, entry_points)


def compile_to_ptx(mod, target="cuda") -> str:
    """PTX for a PrimFunc / IRModule (scheduled, not yet lowered) on ``target`` — no GPU needed."""
    from ember.driver import build

    return build(mod, target=target).get_source("ptx")

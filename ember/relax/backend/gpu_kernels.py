"""The kernels of a Relax program built for a GPU target (``relax.build(mod, "cuda")``).

PrimFuncs marked ``tir.is_host_func`` (host-side helpers, e.g. shape computations) are
compiled for the target's host (LLVM, on the CPU); every other PrimFunc is a device
kernel compiled by the GPU code generator.  A device PrimFunc nobody scheduled (global
memory touched outside ``blockIdx``/``threadIdx`` loops) raises
``UnscheduledKernelError`` saying how to schedule it (dlight's GPU rules).  With both
kinds, the result is one Module over the two built modules.
"""

from __future__ import annotations

from ember.ir import IRModule
from ember.runtime import Module
from ember.tir.analysis.verify_memory import UnboundGPULoopError

__all__ = ["build_gpu_kernels", "UnscheduledKernelError", "HOST_FUNC_ATTR"]

HOST_FUNC_ATTR = "tir.is_host_func"


class UnscheduledKernelError(UnboundGPULoopError):
    """A PrimFunc reached the GPU build without a GPU schedule."""


def _hint(kind: str) -> str:
    return (f"schedule the module's PrimFuncs for the GPU first: `with ember.target.Target(\"{kind}\"): "
            "mod = ember.dlight.ApplyDefaultSchedule(*ember.dlight.gpu.default_rules())(mod)` "
            "(relax.build does this itself unless default_schedule=False), or bind the loops with "
            "sch.bind(loop, \"blockIdx.x\") / sch.bind(loop, \"threadIdx.x\")")


def build_gpu_kernels(prims: dict, target) -> Module:
    """One runtime Module with the kernels of ``prims`` (GlobalVar → PrimFunc) for ``target``."""
    from ember.driver import build as tir_build

    host = {gv: f for gv, f in prims.items() if f.attrs.get(HOST_FUNC_ATTR)}
    device = {gv: f for gv, f in prims.items() if gv not in host}
    built = []
    if device:
        try:
            built.append(tir_build(IRModule(device), target=target))
        except UnboundGPULoopError as err:
            raise UnscheduledKernelError(f"relax.build(target={target.kind.name!r}): {err} To fix it, "
                                         f"{_hint(target.kind.name)}") from None
    if host:
        host_target = getattr(target, "host", None) or "llvm"
        built.append(tir_build(IRModule(host), target=host_target))
    if len(built) == 1:
        return built[0]
    functions = {name: mod[name] for mod in built for name in mod.function_names}
    return Module(functions, type_key="relax_kernels", imports=built)

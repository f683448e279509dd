"""ember.codegen.cuda: lowered TIR → CUDA C kernels + Python host launchers → NVRTC → driver API.

Entry points: ``ember.build(mod, target="cuda")`` (a ``CUDAHostModule``: call it on GPU
arrays; ``get_source("cuda")`` / ``get_source("ptx")``), ``build_cuda(lowered_mod,
target)`` (what ``ember.build`` calls) and ``compile_to_ptx(mod)`` (no GPU needed).
"""

from .build import build_cuda, compile_to_ptx, cuda_arch
from .codegen import CodeGenCUDA
from .split_host_device import GpuCodegenError, Kernel, make_kernel

__all__ = ["build_cuda", "compile_to_ptx", "cuda_arch", "CodeGenCUDA", "GpuCodegenError", "Kernel", "make_kernel"]

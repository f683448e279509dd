"""PTX-level report of dlight.gpu's default schedules, for machines without a GPU: each
kernel's registers, shared memory and spills as ptxas reports them (through NVRTC, for
sm_90), and which PTX features it uses (tensor-core wmma, vector loads, barriers, warp
shuffles).

usage: python benchmarks/gpu_ptx_report.py      (needs the cuda extra: pip install -e ".[cuda]")
"""

from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "dlight_gpu"))

import gpu_workloads as workloads  # noqa: E402

import ember  # noqa: E402
from ember import dlight  # noqa: E402
from ember.runtime.cuda_driver import nvrtc  # noqa: E402
from ember.target import Target  # noqa: E402

CASES = {
    "fp16 GEMM 4096³ (f32 accumulate)": lambda: workloads.matmul(4096, 4096, 4096, "float16", "float32"),
    "fp32 GEMM 4096³": lambda: workloads.matmul(4096, 4096, 4096, "float32"),
    "softmax 4096×4096 f32": lambda: workloads.softmax(4096, 4096),
    "layer_norm 4096×4096 f32": lambda: workloads.layer_norm(4096, 4096),
}
REGISTERS, SHARED, SPILLS = r"Used (\d+) registers", r"(\d+) bytes smem", r"(\d+) bytes spill stores"
FEATURES = ("wmma.mma.sync", "ld.shared.v4", "ld.shared", "shfl.sync", "bar.sync", "ld.global.nc.v4")


def ptxas_log(source: str, arch: str) -> str:
    """NVRTC's log of compiling ``source`` to SASS for ``arch`` with ptxas -v."""
    opts = [f"--gpu-architecture={arch}".encode(), b"-default-device", b"--std=c++17", b"--ptxas-options=-v"]
    if "cuda_fp16.h" in source or "cuda_bf16.h" in source:
        opts.append(f"-I{nvrtc.find_cuda_include()}".encode())
    lib = nvrtc.nvrtc()
    prog = nvrtc.check(lib.nvrtcCreateProgram(source.encode(), b"kernels.cu", 0, [], []), "nvrtcCreateProgram")
    try:
        lib.nvrtcCompileProgram(prog, len(opts), opts)
        log = b" " * nvrtc.check(lib.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
        nvrtc.check(lib.nvrtcGetProgramLog(prog, log), "nvrtcGetProgramLog")
    finally:
        lib.nvrtcDestroyProgram(prog)
    return log.decode(errors="replace")


def main() -> None:
    target = Target("cuda -arch=sm_90")
    print("| kernel (dlight.gpu default) | kernels | registers | shared bytes | spill bytes | PTX features |")
    print("|---|---|---|---|---|---|")
    for name, make in CASES.items():
        with target:
            mod = dlight.ApplyDefaultSchedule(*dlight.gpu.default_rules())(make())
        built = ember.build(mod, target=target)
        log, ptx = ptxas_log(built.get_source("cuda"), "sm_90"), built.get_source("ptx")
        found = [f for f in FEATURES if f in ptx]
        kernels = len(re.findall("Compiling entry function", log))
        regs, smem, spills = (", ".join(re.findall(p, log)) for p in (REGISTERS, SHARED, SPILLS))
        print(f"| {name} | {kernels} | {regs} | {smem or '0'} | {spills} | {', '.join(found)} |")


if __name__ == "__main__":
    main()

"""GPU default schedules vs PyTorch: dlight.gpu's float16 GEMM 4096^3 against torch.matmul
(cuBLAS) and float32 softmax 4096x4096 against torch.softmax, on one CUDA GPU.

Run: ``python benchmarks/bench_gpu.py [--n 4096] [--repeat 20]``.  Without a GPU it says
so and exits 0.  Prints milliseconds, TFLOP/s or GB/s, and ember/torch ratios (>1: ember
slower), plus the max error against torch.
"""

from __future__ import annotations

import argparse
import sys
import time

import ember
from ember import dlight, te, topi
from ember.dlight import gpu
from ember.ir import IRModule
from ember.target import Target


def _have_gpu():
    try:
        import torch
    except ImportError:
        return None, "torch is not installed"
    if not torch.cuda.is_available():
        return None, "torch sees no CUDA GPU"
    if not ember.cuda().exist:
        return None, "ember sees no CUDA GPU (install 'ember[cuda]' and a driver)"
    return torch, ""


def _schedule(func) -> IRModule:
    mod = IRModule({"main": func.with_attr("global_symbol", "main")})
    with Target("cuda"):
        return dlight.ApplyDefaultSchedule(*gpu.default_rules())(mod)


def _time(torch, fn, repeat: int) -> float:
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = float("inf")
    for _ in range(repeat):
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(stop))
    return best


def bench_gemm(torch, n: int, repeat: int) -> None:
    a_t = te.placeholder((n, n), "float16", name="A")
    b_t = te.placeholder((n, n), "float16", name="B")
    k = te.reduce_axis((0, n), name="k")
    c_t = te.compute((n, n), lambda i, j: te.sum(a_t[i, k] * b_t[k, j], axis=k), name="C")
    t0 = time.perf_counter()
    rt = ember.build(_schedule(te.create_prim_func([a_t, b_t, c_t])), target="cuda")
    built = time.perf_counter() - t0
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    c = torch.empty(n, n, device="cuda", dtype=torch.float16)
    ours = _time(torch, lambda: rt(a, b, c), repeat)
    theirs = _time(torch, lambda: torch.matmul(a, b), repeat)
    ref = a.float() @ b.float()
    err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
    flops = 2 * n ** 3 / 1e12
    print(f"fp16 GEMM {n}^3: ember {ours:.3f} ms ({flops / ours * 1e3:.1f} TFLOP/s), torch {theirs:.3f} ms "
          f"({flops / theirs * 1e3:.1f} TFLOP/s), ratio {ours / theirs:.2f}, rel err {err:.1e}, build {built:.1f} s")


def bench_softmax(torch, n: int, repeat: int) -> None:
    x_t = te.placeholder((n, n), "float32", name="X")
    rt = ember.build(_schedule(te.create_prim_func([x_t, topi.nn.softmax(x_t, axis=-1)])), target="cuda")
    x = torch.randn(n, n, device="cuda")
    y = torch.empty_like(x)
    ours = _time(torch, lambda: rt(x, y), repeat)
    theirs = _time(torch, lambda: torch.softmax(x, -1), repeat)
    err = (y - torch.softmax(x, -1)).abs().max().item()
    gbytes = 2 * n * n * 4 / 1e9
    print(f"fp32 softmax {n}x{n}: ember {ours:.3f} ms ({gbytes / ours * 1e3:.0f} GB/s), torch {theirs:.3f} ms "
          f"({gbytes / theirs * 1e3:.0f} GB/s), ratio {ours / theirs:.2f}, max err {err:.1e}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    torch, why = _have_gpu()
    if torch is None:
        print(f"bench_gpu: skipped — {why}")
        return 0
    print(f"device: {torch.cuda.get_device_name()}")
    bench_gemm(torch, args.n, args.repeat)
    bench_softmax(torch, args.n, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The Relax VM's overhead per kernel call.

A chain of K tiny kernels (relu on 8 floats, so the kernel's own work is negligible)
is built with ``relax.build`` and run with ``vm["main"](x)``; the slope of time over K
is the VM's cost per kernel call (argument passing, the planned tensor for each
intermediate, the native argument checks).  Shown next to calling the compiled kernel
directly with preallocated arrays, and to PyTorch eager ``torch.relu`` on an 8-float
tensor (when PyTorch is installed).  Static and symbolic (``n``) shapes are measured.

Run: python benchmarks/bench_vm.py [--threads N] [--chain 64]
"""

from __future__ import annotations

import argparse

from common import machine, set_threads, table, time_call


def chain_module(length: int, symbolic: bool):
    from ember import relax, tir, topi
    from ember.relax import BlockBuilder

    dim = tir.Var("n", "int64") if symbolic else 8
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([dim], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            h = x
            for _ in range(length):
                h = bb.emit_te(topi.nn.relu, h)
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    return bb.get()


def per_call_us(vm_time_short: float, vm_time_long: float, k_short: int, k_long: int) -> float:
    return (vm_time_long - vm_time_short) / (k_long - k_short) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--chain", type=int, default=64, help="kernels in the long chain")
    args = parser.parse_args()
    set_threads(args.threads)

    import numpy as np

    import ember
    from ember import relax

    x = ember.nd.array(np.linspace(-1, 1, 8, dtype="float32"))
    rows = []
    for symbolic in (False, True):
        times = {}
        for k in (1, args.chain):
            exe = relax.build(chain_module(k, symbolic), "llvm")
            vm = relax.VirtualMachine(exe, ember.cpu())
            np.testing.assert_allclose(vm["main"](x).numpy(), np.maximum(x.numpy(), 0))
            times[k] = time_call(lambda vm=vm: vm["main"](x), min_seconds=1.0)
        slope = per_call_us(times[1], times[args.chain], 1, args.chain)
        rows.append({"what": f"VM, {'symbolic' if symbolic else 'static'} shape",
                     "us/kernel call": f"{slope:.2f}", "fixed us/invocation": f"{times[1] * 1e6 - slope:.2f}"})

    kernel = relax.build(chain_module(1, False), "llvm").kernels
    name = next(n for n in kernel.function_names)
    out = ember.nd.empty((8,), "float32")
    direct = time_call(lambda: kernel[name](x, out), min_seconds=1.0)
    rows.append({"what": "compiled kernel called directly", "us/kernel call": f"{direct * 1e6:.2f}"})
    try:
        import torch

        torch.set_num_threads(args.threads)
        tx = torch.linspace(-1, 1, 8)
        eager = time_call(lambda: torch.relu(tx), min_seconds=1.0)
        rows.append({"what": "PyTorch eager torch.relu (8 floats)", "us/kernel call": f"{eager * 1e6:.2f}"})
    except ImportError:
        pass
    print(f"# Relax VM overhead per kernel call ({machine()}, chain of {args.chain})\n")
    print(table(rows, ["what", "us/kernel call", "fixed us/invocation"]))


if __name__ == "__main__":
    main()

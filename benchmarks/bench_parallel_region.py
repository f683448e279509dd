"""What one parallel region costs a kernel call: fork, join and the wait for a late thread.

Two measurements, each of a kernel whose own work is negligible (16 floats, a parallel loop of
2 iterations, or the same loop serial):

- *chained*: a Relax function calling the kernel K times in a row on the VM's fast path, as a
  model calls its kernels; the slope over K (1 and 64 calls) is the cost of one call, serial
  and parallel, so their difference is the cost of entering and leaving one parallel region
  with the team's threads still spinning from the call before;
- *after an idle gap*: one call timed alone after the calling thread spent D µs outside any
  kernel (a Python busy-wait), D from 0 to 3200 µs: once the gap outlasts the workers' spin
  (``GOMP_SPINCOUNT``, ``ember.support.openmp_env``) they sleep, and the call pays their wake-up.

On a loaded machine (other processes on the cores) the parallel call waits for its other
thread to be scheduled: that wait, not the kernel, is then what the figures show.

Run: python benchmarks/bench_parallel_region.py [--threads 2] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from common import set_threads, table

CALLS = 64


def tiny_kernel(parallel: bool):
    """B[i] = A[i] * 1.0001 + 0.5 over 2 rows of 8 floats; the row loop parallel or serial."""
    from ember.ir import Var, const
    from ember.tir import BufferStore, For, ForKind, PrimFunc, decl_buffer

    A, B = decl_buffer((16,), "float32", "A"), decl_buffer((16,), "float32", "B")
    a, b = Var("A", "handle"), Var("B", "handle")
    i, j = Var("i", "int32"), Var("j", "int32")
    kind = ForKind.PARALLEL if parallel else ForKind.SERIAL
    row = For(j, const(0, "int32"), const(8, "int32"), ForKind.SERIAL,
              BufferStore(B, A[i * 8 + j] * 1.0001 + 0.5, (i * 8 + j,)))
    return PrimFunc((a, b), For(i, const(0, "int32"), const(2, "int32"), kind, row), buffer_map={a: A, b: B})


def chain(kernel, calls: int):
    """A Relax module whose main calls ``kernel`` ``calls`` times, each on the last result."""
    from ember import relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([16], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.add_func(kernel.with_attr("global_symbol", "tiny"), "tiny")
            h = x
            for _ in range(calls):
                h = bb.emit(relax.call_tir(gv, [h], relax.TensorStructInfo([16], "float32")))
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    return bb.get()


def _seconds_per_call(fn, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def chained(rounds: int) -> list[dict]:
    import numpy as np

    import ember
    from ember import relax

    x = ember.nd.array(np.ones(16, "float32"))
    fns = {}
    for parallel in (False, True):
        for calls in (1, CALLS):
            vm = relax.VirtualMachine(relax.build(chain(tiny_kernel(parallel), calls), "llvm"), ember.cpu())
            fns[parallel, calls] = lambda f=vm["main"]: f(x)
    times = {k: [] for k in fns}
    for fn in fns.values():
        fn()
    for _ in range(rounds):  # interleaved
        for key, fn in fns.items():
            times[key].append(_seconds_per_call(fn, 2000 // key[1]))
    rows = []
    for parallel in (False, True):
        one, many = statistics.median(times[parallel, 1]), statistics.median(times[parallel, CALLS])
        rows.append({"kernel": "parallel loop" if parallel else "serial loop",
                     "us per call in a chain": f"{(many - one) / (CALLS - 1) * 1e6:.2f}"})
    return rows


def after_gaps(samples: int = 300) -> list[dict]:
    import numpy as np

    import ember

    mods = {p: ember.build(tiny_kernel(p), target="llvm") for p in (False, True)}
    a, b = ember.nd.array(np.ones(16, "float32")), ember.nd.empty((16,), "float32")
    clock = time.perf_counter
    rows = []
    for gap in (0, 5, 20, 50, 100, 200, 400, 800, 1600, 3200):
        row = {"idle gap us": gap}
        for parallel, mod in mods.items():
            times = []
            for _ in range(samples):
                start = clock()
                while clock() - start < gap * 1e-6:
                    pass
                start = clock()
                mod(a, b)
                times.append(clock() - start)
            times.sort()
            label = "parallel" if parallel else "serial"
            row[f"{label} median us"] = f"{times[samples // 2] * 1e6:.1f}"
            row[f"{label} p90 us"] = f"{times[samples * 9 // 10] * 1e6:.1f}"
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    set_threads(args.threads)
    print(f"# one parallel region, {args.threads} thread(s), load average {os.getloadavg()[0]:.2f}\n")
    print(table(chained(args.rounds), ["kernel", "us per call in a chain"]) + "\n")
    columns = ["idle gap us", "serial median us", "serial p90 us", "parallel median us", "parallel p90 us"]
    print(table(after_gaps(), columns))


if __name__ == "__main__":
    main()

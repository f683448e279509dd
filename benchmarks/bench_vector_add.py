"""Parallel + vectorised float32 vector add (2²⁴ elements) next to numpy's ``np.add``.

The kernel is bandwidth bound: each element moves 12 bytes (two loads, one store), so
the schedule only has to (1) split the array into one contiguous chunk per thread and
(2) vectorise the innermost loop over whole zmm registers (16 float32 lanes, unrolled
4× so each loop trip moves 4 cache lines per operand).  ``schedule_vector_add`` is
also what ``tests/perf_schedules`` checks for correctness.

Run: python benchmarks/bench_vector_add.py [--threads N] [--runs R]
"""

from __future__ import annotations

import argparse
import statistics

from common import machine, set_threads, table, time_call

SIZE = 1 << 24


def vector_add_func(n: int = SIZE):
    """``C[i] = A[i] + B[i]`` over ``n`` float32 elements, as TVMScript."""
    from ember.script import tir as T

    @T.prim_func
    def vector_add(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32"), C: T.Buffer((n,), "float32")):
        T.func_attr({"global_symbol": "vector_add", "tir.noalias": True})
        for i in range(n):
            with T.block("C"):
                vi = T.axis.spatial(n, i)
                C[vi] = A[vi] + B[vi]

    return vector_add


def schedule_vector_add(func, threads: int = 2, lanes: int = 64, nontemporal: bool = True):
    """Split ``i`` into ``[threads, rest, lanes]``: parallel chunks, vectorised lanes.

    ``nontemporal`` annotates the chunk loop so its stores bypass the caches: ``C`` is
    written once and not read back, and a streaming store saves the read-for-ownership
    of every destination line (16 → 12 bytes of memory traffic per element).
    ``n`` must be divisible by ``threads * lanes`` (true for powers of two).
    """
    from ember import tir

    n = int(func.buffer_map[func.params[0]].shape[0])
    if threads <= 0 or lanes <= 0 or n % (threads * lanes):
        raise ValueError(f"threads × lanes = {threads} × {lanes} must divide the vector length {n}")
    sch = tir.Schedule(func)
    block = sch.get_block("C")
    (i,) = sch.get_loops(block)
    outer, middle, inner = sch.split(i, factors=[threads, None, lanes])
    sch.parallel(outer)
    sch.vectorize(inner)
    if nontemporal:
        from ember.codegen.llvm import NONTEMPORAL_STORE

        sch.annotate(middle, NONTEMPORAL_STORE, 1)
    return sch


def measure(threads: int, runs: int) -> list[dict]:
    """Median GB/s of ember (scheduled) and ``np.add(x, y, out=z)`` over ``runs`` rounds."""
    import numpy as np

    import ember

    mod = ember.build(schedule_vector_add(vector_add_func(), threads).mod, target="llvm")
    x, y = np.random.rand(SIZE).astype("float32"), np.random.rand(SIZE).astype("float32")
    z = np.empty_like(x)
    ex, ey, ez = ember.nd.array(x), ember.nd.array(y), ember.nd.empty((SIZE,), "float32")
    mod(ex, ey, ez)
    np.testing.assert_array_equal(ez.numpy(), x + y)
    moved = 3 * 4 * SIZE
    times: dict[str, list[float]] = {"ember": [], "numpy": []}
    for _ in range(runs):  # interleaved, so both see the same machine load
        times["ember"].append(time_call(lambda: mod(ex, ey, ez), min_seconds=0.3))
        times["numpy"].append(time_call(lambda: np.add(x, y, out=z), min_seconds=0.3))
    t_np = statistics.median(times["numpy"])
    rows = []
    for name, ts in times.items():
        t = statistics.median(ts)
        rates = [moved / s / 1e9 for s in ts]
        rows.append({"kernel": f"vector add 2²⁴ f32 — {name}", "ms": f"{t * 1e3:.2f}",
                     "GB/s": f"{moved / t / 1e9:.1f}", "range GB/s": f"{min(rates):.1f}–{max(rates):.1f}",
                     "vs numpy": f"{t_np / t:.2f}×"})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    set_threads(args.threads)
    print(f"machine: {machine()}; threads: {args.threads}; runs: {args.runs} (median, min–max)")
    print(table(measure(args.threads, args.runs), ["kernel", "ms", "GB/s", "range GB/s", "vs numpy"]))


if __name__ == "__main__":
    main()

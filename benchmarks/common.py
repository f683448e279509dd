"""Shared helpers for ember's benchmarks: timing, thread settings, result tables.

Every benchmark measures ember next to a reference (numpy, PyTorch, ONNX Runtime) in
the same process, with the same thread count, and reports ratios and GFLOP/s.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable

import ember  # (first: its OpenMP settings must apply before PyTorch starts libgomp)


def build_with_random_args(mod, tensors) -> tuple:
    """``mod`` built for the host, with standard-normal float32 arrays shaped like ``tensors``
    (te tensors or buffers, in argument order; seed 0)."""
    import numpy as np

    rng = np.random.default_rng(0)
    shapes = [[int(d) for d in t.shape] for t in tensors]
    arrays = [ember.nd.array(rng.standard_normal(s).astype("float32")) for s in shapes]
    return ember.build(mod, target="llvm"), arrays


def set_threads(n: int) -> None:
    """Use ``n`` threads in every library we compare (must run before they start)."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "EMBER_NUM_THREADS"):
        os.environ[var] = str(n)


def time_call(fn: Callable[[], object], min_seconds: float = 0.5, repeat: int = 5) -> float:
    """Median seconds per call over ``repeat`` rounds, each at least ``min_seconds`` long."""
    fn()  # warm up
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds / repeat or number >= 1 << 24:
            break
        number *= 2
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        rounds.append((time.perf_counter() - start) / number)
    return statistics.median(rounds)


def vm_call(ex, inputs: dict, entry: str = "main") -> Callable[[], object]:
    """A call of ``entry`` of the compiled ``ex`` on the Relax VM (CPU), ``inputs`` (name →
    numpy array) converted once, up front."""
    from ember import relax

    vm = relax.VirtualMachine(ex, ember.cpu())
    args = [ember.nd.array(v) for v in inputs.values()]
    fn = vm[entry]
    return lambda: fn(*args)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical cores"


def table(rows: list[dict], columns: list[str]) -> str:
    """A Markdown table of ``rows`` restricted to ``columns``."""
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        out.append("| " + " | ".join(str(row.get(c, "")) for c in columns) + " |")
    return "\n".join(out)

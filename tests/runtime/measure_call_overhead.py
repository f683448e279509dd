"""Measure the Python-side overhead of calling a CompiledFunction (not a test).

Run: ``python tests/runtime/measure_call_overhead.py``.  Calls a 3-buffer kernel on
1-element arrays so that the native work is negligible, and prints the best per-call
time over several rounds for NDArray, numpy and torch arguments.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import native_kernels  # noqa: E402

from ember import runtime  # noqa: E402


def best_per_call(func, args, calls: int = 100_000, rounds: int = 7) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            func(*args)
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def main() -> None:
    add = native_kernels.add()
    nds = [runtime.tensor(np.ones(1, "float32")) for _ in range(3)]
    nps = [np.ones(1, "float32") for _ in range(3)]
    print(f"NDArray args: {best_per_call(add, nds) * 1e6:.2f} us/call")
    print(f"numpy args:   {best_per_call(add, nps, calls=20_000) * 1e6:.2f} us/call")
    try:
        import torch

        ts = [torch.ones(1) for _ in range(3)]
        print(f"torch args:   {best_per_call(add, ts, calls=20_000) * 1e6:.2f} us/call")
    except ImportError:
        pass
    empty = lambda *a: None  # noqa: E731
    print(f"(python no-op call for reference: {best_per_call(empty, nds) * 1e6:.2f} us/call)")


if __name__ == "__main__":
    main()

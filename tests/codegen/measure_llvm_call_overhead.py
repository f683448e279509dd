"""Measure the overhead of calling an ember-compiled 3-argument function (not a test).

Run: ``python tests/codegen/measure_call_overhead.py``.  Builds ``C[i] = A[i] + B[i]``
with ``ember.build`` (symbolic n, full native argument checks) and calls it on
1-element arrays, so the time is the call path: Python argument conversion, the ctypes
call and the generated argument checks.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from codegen_helpers import elementwise  # noqa: E402

import ember  # noqa: E402
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
    mod = ember.build(elementwise(lambda a, b: a + b, ["float32", "float32"], "float32", name="add"), target="llvm")
    add = mod["add"]
    nds = [runtime.tensor(np.ones(1, "float32")) for _ in range(3)]
    nps = [np.ones(1, "float32") for _ in range(3)]
    print(f"mod['add'](NDArray x3): {best_per_call(add, nds) * 1e6:.2f} us/call")
    print(f"mod(NDArray x3):        {best_per_call(mod, nds) * 1e6:.2f} us/call")
    print(f"mod['add'](numpy x3):   {best_per_call(add, nps, calls=20_000) * 1e6:.2f} us/call")
    empty = lambda *a: None  # noqa: E731
    print(f"(python no-op call for reference: {best_per_call(empty, nds) * 1e6:.2f} us/call)")


if __name__ == "__main__":
    main()

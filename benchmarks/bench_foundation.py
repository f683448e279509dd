"""Baseline benchmarks for the unscheduled code path (issue: Foundation).

- the naive (unscheduled) 1024³ float32 matmul, next to numpy
- a 2**24-element float32 vector add, next to numpy (bandwidth)
- the overhead of calling a compiled 3-argument function

Run: python benchmarks/bench_foundation.py [--threads N]
"""

from __future__ import annotations

import argparse

from common import machine, set_threads, table, time_call


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n", type=int, default=1024, help="matmul size")
    args = parser.parse_args()
    set_threads(args.threads)

    import numpy as np

    import ember
    from ember import te

    rows = []
    n = args.n
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    mm = ember.build(te.create_prim_func([A, B, C]), target="llvm")
    a, b = np.random.rand(n, n).astype("float32"), np.random.rand(n, n).astype("float32")
    ea, eb, ec = ember.nd.array(a), ember.nd.array(b), ember.nd.empty((n, n), "float32")
    mm(ea, eb, ec)
    np.testing.assert_allclose(ec.numpy(), a @ b, rtol=1e-3)
    t_ember = time_call(lambda: mm(ea, eb, ec), min_seconds=2.0, repeat=3)
    t_numpy = time_call(lambda: a @ b, min_seconds=1.0)
    flops = 2 * n**3
    rows.append({"benchmark": f"matmul {n}³ f32 (unscheduled)", "ember": f"{t_ember*1e3:.1f} ms",
                 "numpy": f"{t_numpy*1e3:.2f} ms", "ember GFLOP/s": f"{flops/t_ember/1e9:.2f}",
                 "numpy GFLOP/s": f"{flops/t_numpy/1e9:.1f}", "ember / numpy time": f"{t_ember/t_numpy:.1f}×"})

    size = 1 << 24
    X = te.placeholder((size,), "float32", name="X")
    Y = te.placeholder((size,), "float32", name="Y")
    Z = te.compute((size,), lambda i: X[i] + Y[i], name="Z")
    add = ember.build(te.create_prim_func([X, Y, Z]), target="llvm")
    x, y = np.random.rand(size).astype("float32"), np.random.rand(size).astype("float32")
    z = np.empty_like(x)
    ex, ey, ez = ember.nd.array(x), ember.nd.array(y), ember.nd.empty((size,), "float32")
    add(ex, ey, ez)
    np.testing.assert_array_equal(ez.numpy(), x + y)
    t_ember = time_call(lambda: add(ex, ey, ez))
    t_numpy = time_call(lambda: np.add(x, y, out=z))
    moved = 3 * 4 * size
    rows.append({"benchmark": "vector add 2²⁴ f32", "ember": f"{t_ember*1e3:.2f} ms",
                 "numpy": f"{t_numpy*1e3:.2f} ms", "ember GB/s": f"{moved/t_ember/1e9:.1f}",
                 "numpy GB/s": f"{moved/t_numpy/1e9:.1f}", "ember / numpy time": f"{t_ember/t_numpy:.2f}×"})

    P = te.placeholder((4,), "float32", name="P")
    Q = te.placeholder((4,), "float32", name="Q")
    R = te.compute((4,), lambda i: P[i] + Q[i], name="R")
    tiny = ember.build(te.create_prim_func([P, Q, R]), target="llvm")
    p, q, r = (ember.nd.array(np.ones(4, "float32")) for _ in range(3))
    t_call = time_call(lambda: tiny(p, q, r), min_seconds=1.0)
    pn, qn, rn = (np.ones(4, "float32") for _ in range(3))
    t_np_call = time_call(lambda: tiny(pn, qn, rn), min_seconds=1.0)
    t_np = time_call(lambda: np.add(pn, qn, out=rn), min_seconds=1.0)
    rows.append({"benchmark": "call overhead, 3 NDArray args (4 elements)", "ember": f"{t_call*1e6:.2f} µs",
                 "numpy": f"{t_np*1e6:.2f} µs (np.add out=)"})
    rows.append({"benchmark": "call overhead, 3 numpy args (4 elements)", "ember": f"{t_np_call*1e6:.2f} µs"})

    print(f"machine: {machine()}; threads: {args.threads}")
    cols = ["benchmark", "ember", "numpy", "ember GFLOP/s", "numpy GFLOP/s", "ember GB/s", "numpy GB/s",
            "ember / numpy time"]
    print(table(rows, cols))


if __name__ == "__main__":
    main()

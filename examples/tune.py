"""Tune a kernel with MetaSchedule: search schedules for a matmul, keep the best in a
JSON database, compile it and compare with the untuned default.

Run: python examples/tune.py [TRIALS]   (default 8 trials: a quick demonstration)
"""

import sys
import tempfile

import numpy as np

import ember
from ember import meta_schedule as ms
from ember import te


def main(trials: int = 8, n: int = 128):
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    func = te.create_prim_func([A, B, C])
    target = ember.target.Target("llvm -num-cores=1")
    with tempfile.TemporaryDirectory() as work_dir:
        database = ms.tune_tir(func, target, work_dir, max_trials_global=trials, num_trials_per_iter=trials,
                               builder=ms.LocalBuilder(max_workers=1),
                               cost_model="random", progress=False, seed=0)
        sch = ms.tir_integration.compile_tir(database, func, target)
    mod = ember.build(sch.mod if sch is not None else func, target=target)
    a, b = (np.random.rand(n, n).astype("float32") for _ in range(2))
    c = ember.nd.empty((n, n), "float32")
    mod(ember.nd.array(a), ember.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)
    seconds = mod.time_evaluator(mod.entry_name, ember.cpu(), number=3, repeat=3)(
        ember.nd.array(a), ember.nd.array(b), c).mean
    print(f"tuned matmul {n} ({trials} trials): {seconds * 1e3:.3f} ms; result matches numpy")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8)

"""Write a kernel and schedule it by hand: a matrix multiply in TensorIR, made fast with
tir.Schedule primitives (tile, reorder, vectorize, parallel), checked against numpy.

Run: python examples/schedule_kernel.py
"""

import numpy as np

import ember
from ember import te, tir


def matmul(n: int):
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def schedule(func):
    sch = tir.Schedule(func)
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, factors=[None, 32])
    j0, j1 = sch.split(j, factors=[None, 64])
    sch.reorder(i0, j0, k, i1, j1)  # a 32x64 tile of C stays in cache while k runs
    sch.parallel(i0)
    sch.vectorize(j1)
    sch.decompose_reduction(block, k)
    return sch


def timed(mod, args, dev):
    return mod.time_evaluator(mod.entry_name, dev, number=3, repeat=3)(*args).mean


def main(n: int = 256):
    dev = ember.cpu()
    func = matmul(n)
    sch = schedule(func)
    print(sch.trace)  # every primitive applied, replayable as Python
    a, b = (np.random.rand(n, n).astype("float32") for _ in range(2))
    args = [ember.nd.array(a), ember.nd.array(b), ember.nd.empty((n, n), "float32")]
    plain = ember.build(func, target="llvm")
    fast = ember.build(sch.mod, target="llvm")
    fast(*args)
    np.testing.assert_allclose(args[2].numpy(), a @ b, rtol=1e-4)
    t_plain, t_fast = timed(plain, args, dev), timed(fast, args, dev)
    print(f"matmul {n}: unscheduled {t_plain * 1e3:.2f} ms, scheduled {t_fast * 1e3:.2f} ms "
          f"({t_plain / t_fast:.1f}x faster); result matches numpy")


if __name__ == "__main__":
    main()

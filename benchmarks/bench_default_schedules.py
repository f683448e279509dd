"""ember's default schedules (``ember.dlight`` CPU rules) per rule, next to the unscheduled
kernel, numpy and PyTorch, at the same thread count.

Kernels: dense 1×784×256 and 32×784×256 (``topi.nn.dense``: weight stored (N, K)), matmul
1024³, softmax 32×1000, layer_norm 32×768, conv2d 1×64×56×56 with 64 3×3 filters (pad 1).
Each ember kernel is checked against numpy before it is timed.  Ratios are ember default
time / reference time (below 1: ember faster).  Unscheduled kernels that take seconds are
timed once (``--skip-naive`` leaves them out).

Run: python benchmarks/bench_default_schedules.py [--threads N] [--skip-naive]
"""

from __future__ import annotations

import argparse
import time

from common import machine, set_threads, table, time_call


def kernels():
    """name → (PrimFunc, numpy inputs, numpy reference function, torch function or None, FLOPs)."""
    import numpy as np

    from ember import te, topi

    rng = np.random.default_rng(0)
    out = {}

    def rand(*shape):
        return rng.standard_normal(shape).astype("float32")

    for m in (1, 32):
        x, w = te.placeholder((m, 784), name="X"), te.placeholder((256, 784), name="W")
        out[f"dense {m}x784x256"] = (te.create_prim_func([x, w, topi.nn.dense(x, w)]), [rand(m, 784), rand(256, 784)],
                                    lambda a, b: a @ b.T, lambda a, b: a @ b.T, 2 * m * 784 * 256)
    n = 1024
    a, b = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    out["matmul 1024^3"] = (te.create_prim_func([a, b, topi.nn.matmul(a, b)]), [rand(n, n), rand(n, n)],
                            lambda p, q: p @ q, lambda p, q: p @ q, 2 * n**3)
    s = te.placeholder((32, 1000), name="X")

    def softmax_np(v):
        e = np.exp(v - v.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    out["softmax 32x1000"] = (te.create_prim_func([s, topi.nn.softmax(s, axis=-1)]), [rand(32, 1000)], softmax_np,
                              "softmax", 5 * 32 * 1000)
    x, g, bt = te.placeholder((32, 768), name="X"), te.placeholder((768,), name="g"), te.placeholder((768,), name="b")

    def ln_np(v, gv, bv):
        return (v - v.mean(-1, keepdims=True)) / np.sqrt(v.var(-1, keepdims=True) + 1e-5) * gv + bv

    out["layer_norm 32x768"] = (te.create_prim_func([x, g, bt, topi.nn.layer_norm(x, g, bt, axis=[-1])]),
                                [rand(32, 768), rand(768), rand(768)], ln_np, "layer_norm", 8 * 32 * 768)
    x, w = te.placeholder((1, 64, 56, 56), name="X"), te.placeholder((64, 64, 3, 3), name="W")

    def conv_np(v, f):
        vp = np.pad(v, ((0, 0), (0, 0), (1, 1), (1, 1)))
        res = np.zeros((1, 64, 56, 56), "float32")
        for i in range(3):
            for j in range(3):
                res += np.einsum("nchw,fc->nfhw", vp[:, :, i:i + 56, j:j + 56], f[:, :, i, j], optimize=True)
        return res

    out["conv2d 1x64x56x56 k3"] = (te.create_prim_func([x, w, topi.nn.conv2d_nchw(x, w, 1, 1, 1)]),
                                   [rand(1, 64, 56, 56), rand(64, 64, 3, 3)], conv_np, "conv2d", 2 * 64 * 56 * 56 * 64 * 9)
    return out


def _torch_fn(kind, torch, args):
    ts = [torch.from_numpy(a) for a in args]
    if kind == "softmax":
        return lambda: torch.softmax(ts[0], -1)
    if kind == "layer_norm":
        return lambda: torch.nn.functional.layer_norm(ts[0], (768,), ts[1], ts[2])
    if kind == "conv2d":
        return lambda: torch.nn.functional.conv2d(ts[0], ts[1], padding=1)
    return lambda: kind(*ts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-naive", action="store_true", help="do not time unscheduled kernels")
    parser.add_argument("--min-seconds", type=float, default=0.3)
    args = parser.parse_args()
    set_threads(args.threads)

    import numpy as np

    import ember
    from ember.dlight import cpu, schedule_func
    from ember.target import Target

    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        torch = None
    target = Target("llvm")
    rows = []
    for name, (func, inputs, ref, torch_kind, flops) in kernels().items():
        expect = ref(*inputs)
        nd_in = [ember.nd.array(a) for a in inputs]
        nd_out = ember.nd.empty(expect.shape, "float32")
        scheduled = schedule_func(func, name, cpu.default_rules(), target)
        default = ember.build(scheduled, target="llvm")
        default(*nd_in, nd_out)
        np.testing.assert_allclose(nd_out.numpy(), expect, rtol=1e-3, atol=1e-3)
        times = {"ember default": time_call(lambda f=default, i=nd_in, o=nd_out: f(*i, o), min_seconds=args.min_seconds)}
        if not args.skip_naive:
            naive = ember.build(func, target="llvm")
            start = time.perf_counter()
            naive(*nd_in, nd_out)
            times["ember unscheduled"] = time.perf_counter() - start
        times["numpy"] = time_call(lambda f=ref, i=inputs: f(*i), min_seconds=args.min_seconds)
        if torch is not None:
            with torch.inference_mode():
                times["PyTorch"] = time_call(_torch_fn(torch_kind, torch, inputs), min_seconds=args.min_seconds)
        row = {"kernel": name}
        for what, t in times.items():
            row[f"{what} us"] = f"{t * 1e6:.1f}"
        row["GFLOP/s default"] = f"{flops / times['ember default'] / 1e9:.1f}"
        for what in ("ember unscheduled", "numpy", "PyTorch"):
            if what in times:
                row[f"default/{what.split()[-1]}"] = f"{times['ember default'] / times[what]:.2f}"
        rows.append(row)
    print(f"# ember default schedules ({machine()}, {args.threads} threads)\n")
    cols = ["kernel", "ember unscheduled us", "ember default us", "numpy us", "PyTorch us", "GFLOP/s default",
            "default/unscheduled", "default/numpy", "default/PyTorch"]
    print(table(rows, cols))


if __name__ == "__main__":
    main()

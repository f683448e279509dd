"""Kernel by kernel: a model's static build next to its build with symbolic dims, each
symbolic kernel run at the static size.  Which kernels lose when shapes are symbolic?

Both builds' kernels are scheduled by the default dlight rules, paired by name, and timed
alone on the same random inputs, taking turns in alternating order (``--rounds`` rounds,
median per kernel), so load on a shared machine hits both alike.  Also checks that each pair computes the same.

Run: python benchmarks/compare_symbolic_kernels.py [--static bert --dynamic bert_dyn]
     [--bind batch=1,seq=128] [--threads 1] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from common import set_threads

import bench_model_zoo as zoo
from profile_kernels import _dim, call_counts, scheduled_module


def _shapes(func, bind):
    out = []
    for p in func.params:
        buf = func.buffer_map.get(p)
        if buf is None:
            return None
        dims = [_dim(d, bind) for d in buf.shape]
        if None in dims:
            return None
        out.append((dims, str(buf.dtype)))
    return out


def _time(kernel, arrays, seconds: float) -> float:
    number, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        kernel(*arrays)
        number += 1
    return (time.perf_counter() - start) / number


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--static", default="bert")
    parser.add_argument("--dynamic", default="bert_dyn")
    parser.add_argument("--bind", default="batch=1,seq=128", help="values of symbolic dims, name=value,...")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.05, help="time per kernel per round")
    args = parser.parse_args()
    set_threads(args.threads)
    bind = dict((k, int(v)) for k, v in (kv.split("=") for kv in args.bind.split(",") if kv))
    import ember as tvm
    from ember.tir import PrimFunc

    static, _ = scheduled_module(zoo.workload(args.static, 1))
    dynamic, rules = scheduled_module(zoo.workload(args.dynamic, 1))
    counts = call_counts(dynamic)
    rng = np.random.default_rng(0)
    pairs = []
    for gv, func in dynamic.functions.items():
        name = gv.name_hint
        if not isinstance(func, PrimFunc) or name not in [g.name_hint for g in static.functions]:
            continue
        fixed = static[name]
        shapes = _shapes(fixed, {})
        if shapes is None or _shapes(func, bind) != shapes:
            print(f"skipped {name}: shapes differ or are not bound")
            continue
        inputs = [rng.standard_normal(d).astype(t) if "float" in t else np.zeros(d, t) for d, t in shapes]
        kernels = [tvm.build(f, target="llvm") for f in (fixed, func)]
        arrays = [[tvm.nd.array(x) for x in inputs] for _ in kernels]
        for k, a in zip(kernels, arrays):
            k(*a)
        err = float(np.max(np.abs(arrays[0][-1].numpy() - arrays[1][-1].numpy())))
        pairs.append((name, kernels, arrays, err))
    times = {name: ([], []) for name, *_ in pairs}
    for r in range(args.rounds):
        for name, kernels, arrays, _ in pairs:
            for side in ((0, 1) if r % 2 == 0 else (1, 0)):  # the second timed runs slower
                times[name][side].append(_time(kernels[side], arrays[side], args.seconds))
    rows = []
    for name, _, _, err in pairs:
        st, dy = (statistics.median(t) for t in times[name])
        n = max(counts[name], 1)
        rows.append(((dy - st) * n, name, n, st, dy, err))
    rows.sort(reverse=True)
    tot_s = sum(r[2] * r[3] for r in rows)
    tot_d = sum(r[2] * r[4] for r in rows)
    print(f"kernels summed: static {tot_s * 1e3:.2f} ms, symbolic {tot_d * 1e3:.2f} ms, ratio {tot_d / tot_s:.3f}"
          f" ({args.threads} threads, {args.rounds} rounds, bind {args.bind})")
    print("| kernel | calls | static us | symbolic us | sym/static | extra ms per run | rule | max abs diff |")
    print("|---|---|---|---|---|---|---|---|")
    for extra, name, n, st, dy, err in rows:
        print(f"| {name} | {n} | {st * 1e6:.1f} | {dy * 1e6:.1f} | {dy / st:.2f} | {extra * 1e3:+.2f} |"
              f" {rules.get(name, '?')} | {err:.1e} |")


if __name__ == "__main__":
    main()

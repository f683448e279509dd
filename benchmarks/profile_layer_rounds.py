"""ember's kernels against OpenVINO's layers, per layer type, in interleaved rounds: each round
runs OpenVINO's model a few times (its ``PERF_COUNT`` per layer) and then times every ember
kernel alone, so both see the same machine load; the ratio ember / OpenVINO is taken per
round and its median and range reported.  ``profile_layer_types.py`` runs each runtime once,
one after the other, which on a loaded machine moves a layer type's ratio by 2-3x.

Run: python benchmarks/profile_layer_rounds.py mobilenet_v2 [--threads 1] [--rounds 7]
"""

from __future__ import annotations

import argparse
import collections
import statistics
import time

import numpy as np

from common import set_threads

import bench_model_zoo as zoo
import profile_kernels as pk
import profile_layer_types as plt


def _ember_kernels(w, hot: bool) -> list:
    """(layer type, calls per run, kernel, its argument lists) of each kernel ember's model calls."""
    import ember as tvm
    from ember.tir import PrimFunc

    mod, _ = pk.scheduled_module(w)
    counts = pk.call_counts(mod)
    constants = pk.constant_params(mod)
    rng = np.random.default_rng(0)
    out = []
    for gv, func in mod.functions.items():
        if not isinstance(func, PrimFunc) or not counts[gv.name_hint]:
            continue
        shapes = [[int(d) for d in func.buffer_map[p].shape] for p in func.params]
        dtypes = [str(func.buffer_map[p].dtype) for p in func.params]
        arrays = [tvm.nd.array(rng.standard_normal(s).astype(t) if "float" in t else np.zeros(s, t))
                  for s, t in zip(shapes, dtypes)]
        sets = [arrays] if hot else pk.cold_weight_sets(arrays, constants[gv.name_hint])
        out.append((plt._ember_type(gv.name_hint, func), counts[gv.name_hint], tvm.build(func, target="llvm"), sets))
    return out


def _ember_round(kernels: list, seconds: float) -> dict:
    totals: dict = collections.defaultdict(float)
    for kind, calls, kernel, sets in kernels:
        kernel(*sets[-1])
        number, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            kernel(*sets[number % len(sets)])
            number += 1
        totals[kind] += (time.perf_counter() - start) / number * calls * 1e3
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--runs", type=int, default=5, help="OpenVINO runs per round")
    parser.add_argument("--seconds", type=float, default=0.03, help="time per ember kernel per round")
    parser.add_argument("--hot", action="store_true", help="ember's kernels on the same arrays every call")
    args = parser.parse_args()
    set_threads(args.threads)
    w = zoo.workload(args.model, 1)
    kernels = _ember_kernels(w, args.hot)
    ember, ov = collections.defaultdict(list), collections.defaultdict(list)
    for _ in range(args.rounds):
        for kind, ms in plt.openvino_types(w, args.threads, args.runs).items():
            ov[kind].append(ms)
        for kind, ms in _ember_round(kernels, args.seconds).items():
            ember[kind].append(ms)
    print(f"{args.model}, {args.threads} thread(s), {args.rounds} interleaved rounds, ember's weights "
          f"{'hot' if args.hot else 'cold'}: ms per run by layer type, median (range); ember / OpenVINO per round")
    print("| layer type | ember ms | OpenVINO ms | ember / OpenVINO |\n|---|---|---|---|")
    for kind in sorted(set(ember) | set(ov), key=lambda k: -statistics.median(ember.get(k, [0]))):
        e, o = ember.get(kind), ov.get(kind)
        cell = lambda v: f"{statistics.median(v):.2f} ({min(v):.2f}–{max(v):.2f})" if v else "—"  # noqa: E731
        ratio = "—"
        if e and o and len(e) == len(o):
            r = [a / b for a, b in zip(e, o)]
            ratio = f"{statistics.median(r):.2f} ({min(r):.2f}–{max(r):.2f})"
        print(f"| {kind} | {cell(e)} | {cell(o)} | {ratio} |")


if __name__ == "__main__":
    main()

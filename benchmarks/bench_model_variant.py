"""One model, one build variant, in its own process: ember (default rules, with the given
rule attributes set) against ONNX Runtime, interleaved, at a thread count; prints one line
``label ember_ms ort_ms ratio`` (medians; the ratio is the median of the per-round ratios).

At 2 threads two ember builds in one process do not time alike (``bench_rule_variants.py``
measures whichever runs second faster), so variants are compared in separate processes,
taking turns: run A, B, A, B ... and compare their ember/ORT ratios.  Run:
python benchmarks/bench_model_variant.py --model resnet50 --threads 2 --label rows \\
    --set Conv2DNCHWc.rows_outside_channels=1
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from common import set_threads

import bench_model_zoo as zoo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--label", default="now")
    parser.add_argument("--set", action="append", default=[], help="Rule.attribute=value (a number)")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=10, help="calls per round and runtime")
    parser.add_argument("--cpu-time", action="store_true", help="the calling thread's CPU time (1 thread)")
    args = parser.parse_args()
    set_threads(args.threads)
    import bench_models as bm
    from ember.dlight import cpu

    for item in args.set:
        target, _, value = item.partition("=")
        rule, _, attr = target.partition(".")
        setattr(getattr(cpu, rule), attr, float(value))
    w = zoo.workload(args.model, 1)
    ort = bm._ort(w, args.threads)
    ember, _, _ = bm._ember(w)
    ref, got = bm._first(ort()), bm._first(ember())
    err = float(np.max(np.abs(got - ref))) / (float(np.max(np.abs(ref))) or 1.0)
    if not err <= 2e-3:
        raise SystemExit(f"{args.label}: ember differs from ORT (max err / max |ref| = {err:.2e})")
    clock = time.thread_time if args.cpu_time else time.perf_counter
    times = {"ember": [], "ORT": []}
    for fn in (ember, ort, ember, ort):
        fn()
    for _ in range(args.rounds):
        for name, fn in (("ember", ember), ("ORT", ort)):
            start = clock()
            for _ in range(args.calls):
                fn()
            times[name].append((clock() - start) / args.calls)
    ratios = [e / o for e, o in zip(times["ember"], times["ORT"])]
    print(f"{args.label} {statistics.median(times['ember']) * 1e3:.2f} {statistics.median(times['ORT']) * 1e3:.2f} "
          f"{statistics.median(ratios):.3f}", flush=True)


if __name__ == "__main__":
    main()

"""A/B of dlight CPU rule variants on whole models, in one process: ONNX Runtime and ember
builds that differ only in class attributes of the rules (``Rule.attr=value``), interleaved,
every build checked against ORT first.  What a step of issue 10 buys, measured side by side.

Run: python benchmarks/bench_rule_variants.py --models mobilenet_v2 \\
       --variant "copy:DepthwiseConv2DNCHWc.pad_in_place=0" --variant "in place:"
(each ``--variant`` is ``label:Rule.attr=value,...``; an empty list of settings is the default
build; ratios are ember / ORT and each variant / the first; spread = per-round ratio range)
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from common import set_threads, vm_call

import bench_model_zoo as zoo
from bench_models import _first, _ort, _time_interleaved


def _parse(spec: str) -> tuple[str, list]:
    label, _, settings = spec.partition(":")
    out = []
    for item in filter(None, (s.strip() for s in settings.split(","))):
        target, _, value = item.partition("=")
        rule, _, attr = target.partition(".")
        out.append((rule, attr, int(value) if value.lstrip("-").isdigit() else value))
    return label, out


def _build(w, settings: list):
    import onnx

    from ember import relax
    from ember.dlight import cpu
    from ember.relax.frontend.onnx import from_onnx

    saved = [(getattr(cpu, r), a, getattr(getattr(cpu, r), a)) for r, a, _ in settings]
    for rule, attr, value in settings:
        setattr(getattr(cpu, rule), attr, value)
    try:
        start = time.process_time()
        ex = relax.build(from_onnx(onnx.load_from_string(w.onnx_bytes)), "llvm")
        seconds = time.process_time() - start
    finally:
        for cls, attr, value in saved:
            setattr(cls, attr, value)
    return vm_call(ex, w.inputs), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50,mobilenet_v2")
    parser.add_argument("--variant", action="append", required=True, help="label:Rule.attr=value,...")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--min-seconds", type=float, default=3.0)
    parser.add_argument("--cpu-time", action="store_true",
                        help="time the calling thread's CPU time (use with --threads 1 under load)")
    args = parser.parse_args()
    os.environ["EMBER_DISK_CACHE"] = "0"  # every variant compiled afresh
    os.environ["EMBER_BUILD_CACHE"] = "0"
    set_threads(args.threads)
    variants = [_parse(v) for v in args.variant]
    first = variants[0][0]
    print(f"threads {args.threads}{', thread CPU time' if args.cpu_time else ''}; ember / ORT and variant / {first!r}, same process, interleaved, "
          f"median of {args.repeats} (per-round range)")
    print("| model | variant | ember ms | ORT ms | ember / ORT | / first | compile CPU s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        w = zoo.workload(name, 1)
        fns = {"ORT": _ort(w, args.threads)}
        ref = _first(fns["ORT"]())
        secs = {}
        for label, settings in variants:
            fn, secs[label] = _build(w, settings)
            got = _first(fn())
            err = float(np.max(np.abs(got - ref))) / (float(np.max(np.abs(ref))) or 1.0)
            if got.shape != ref.shape or not err <= 2e-3:
                raise SystemExit(f"{name} {label}: output differs from ORT (max err / max |ref| = {err:.2e})")
            fns[label] = fn
        samples = _time_interleaved(fns, args.repeats, args.min_seconds,
                                    time.thread_time if args.cpu_time else time.perf_counter)
        ort = samples["ORT"]
        for label, _ in variants:
            s = samples[label]
            vs_ort = sorted(a / b for a, b in zip(s, ort))
            vs_first = sorted(a / b for a, b in zip(s, samples[first]))
            print(f"| {name} | {label} | {statistics.median(s) * 1e3:.2f} | {statistics.median(ort) * 1e3:.2f} | "
                  f"{statistics.median(vs_ort):.2f} ({vs_ort[0]:.2f}–{vs_ort[-1]:.2f}) | "
                  f"{statistics.median(vs_first):.2f} ({vs_first[0]:.2f}–{vs_first[-1]:.2f}) | "
                  f"{secs[label]:.1f} |", flush=True)


if __name__ == "__main__":
    main()

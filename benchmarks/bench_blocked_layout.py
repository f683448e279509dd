"""A/B of the channel-blocked layout in one process: ember with convolutions in NCHW
(weights packed per kernel), ember with activations in NCHW{B}c across layers (the default
pipeline's ``BlockedConvLayout``), and ONNX Runtime, interleaved; both builds checked
against ORT first.

Run: python benchmarks/bench_blocked_layout.py [--models resnet50,mobilenet_v2] [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from common import set_threads, vm_call

import bench_model_zoo as zoo
from bench_models import _first, _ort, _time_interleaved


def _ember(w, blocked: bool):
    import onnx

    from ember import relax
    from ember.relax.frontend.onnx import from_onnx
    from ember.transform import PassContext

    start = time.process_time()
    mod = from_onnx(onnx.load_from_string(w.onnx_bytes))
    with PassContext(config={"relax.transform.blocked_conv_layout": blocked}):
        ex = relax.build(mod, "llvm")
    seconds = time.process_time() - start
    return vm_call(ex, w.inputs), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50,mobilenet_v2,squeezenet")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--min-seconds", type=float, default=3.0)
    args = parser.parse_args()
    set_threads(args.threads)
    print(f"threads {args.threads}; ratios are ember / ORT, same process, interleaved")
    print("| model | NCHW packed | NCHW{B}c blocked | blocked / packed | compile CPU s packed → blocked |")
    print("|---|---|---|---|---|")
    for name in args.models.split(","):
        w = zoo.workload(name, 1)
        fns = {"ORT": _ort(w, args.threads)}
        ref = _first(fns["ORT"]())
        secs = {}
        for label, blocked in (("packed", False), ("blocked", True)):
            fn, secs[label] = _ember(w, blocked)
            got = _first(fn())
            err = float(np.max(np.abs(got - ref))) / (float(np.max(np.abs(ref))) or 1.0)
            if got.shape != ref.shape or not err <= 2e-3:
                raise SystemExit(f"{name} {label}: output differs from ORT (max err / max |ref| = {err:.2e})")
            fns[label] = fn
        samples = _time_interleaved(fns, args.repeats, args.min_seconds)
        med = {k: statistics.median(v) for k, v in samples.items()}
        print(f"| {name} | {med['packed'] / med['ORT']:.2f} | {med['blocked'] / med['ORT']:.2f} | "
              f"{med['blocked'] / med['packed']:.2f} | {secs['packed']:.1f} → {secs['blocked']:.1f} |", flush=True)


if __name__ == "__main__":
    main()

"""Whole-model build variants against ONNX Runtime, interleaved: ember (default rules, each
variant setting rule attributes before its build) and ORT take turns in rounds; prints per
variant its median ms, ORT's, and the median of the per-round ratios ember / ORT (range), and
every variant's per-round ratio to the first.  A variant item ``env.NAME=value`` sets an
environment variable during that variant's build (``env.EMBER_WINOGRAD=0``).

At 2 threads on a loaded machine the wall clock measures the scheduler more than the kernels
(a static split waits for a descheduled thread).  ``--clock process`` counts the CPU time of
all the process's threads instead, with idle threads sleeping (``OMP_WAIT_POLICY=PASSIVE``,
ORT's spinning off), so what is timed is the work both threads do, cache misses included.
In wall time ORT's threads spin after its calls by default, on the cores the next variant
(the first, each round) needs: ``--ort-spin off`` turns that off (round 8 found no slow first
variant with it off).
``--separate``: at 2 threads two ember builds in one process have timed unlike (the second
faster, ``bench_rule_variants.py``); give one variant per process and compare the lines.
Run:
python benchmarks/bench_model_variant.py --model resnet50 --threads 2 --clock process \
    --variant "now:" --variant "rows:Conv2DNCHWc.rows_outside_channels=1"
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

if "--clock" in sys.argv and sys.argv[sys.argv.index("--clock") + 1] == "process":
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before ember starts libgomp

from common import set_threads  # noqa: E402

import bench_model_zoo as zoo  # noqa: E402


def _ort(w, threads: int, spin: bool):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if not spin:
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    sess = ort.InferenceSession(w.onnx_bytes, opts, providers=["CPUExecutionProvider"])
    return lambda: sess.run(None, w.inputs)


def _build(w, text: str):
    """(label, ember callable) of the variant ``label:Rule.attr=value,...``."""
    import bench_models as bm
    from ember.codegen.llvm import codegen
    from ember.dlight import cpu

    label, _, body = text.partition(":")
    saved, env = [], {}
    for item in filter(None, body.split(",")):
        target, _, value = item.partition("=")
        rule, _, attr = target.partition(".")
        if rule == "env":  # env.NAME=value: an environment variable set during this build
            env[attr] = os.environ.get(attr)
            os.environ[attr] = value
            continue
        cls = codegen if rule == "codegen" else getattr(cpu, rule)  # codegen.NAME: an LLVM codegen setting
        saved.append((cls, attr, getattr(cls, attr)))
        setattr(cls, attr, type(getattr(cls, attr))(float(value)))
    try:
        fn, _, _ = bm._ember(w)
    finally:
        for cls, attr, old in reversed(saved):
            setattr(cls, attr, old)
        for name, old in env.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old
    return label, fn


def _spread(values: list) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.2f}–{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--variant", action="append", required=True, help="label:Rule.attr=value,... (env.NAME=value, codegen.NAME=value)")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=5, help="calls per round and runtime")
    parser.add_argument("--clock", choices=("wall", "thread", "process"), default="wall")
    parser.add_argument("--ort-spin", choices=("on", "off"), default="on", help="ORT's threads spin in wall time")
    args = parser.parse_args()
    set_threads(args.threads)
    import bench_models as bm

    w = zoo.workload(args.model, 1)
    ort = _ort(w, args.threads, spin=args.clock == "wall" and args.ort_spin == "on")
    ref = bm._first(ort())
    fns = {}
    for text in args.variant:
        label, fn = _build(w, text)
        got = bm._first(fn())
        err = float(np.max(np.abs(got - ref))) / (float(np.max(np.abs(ref))) or 1.0)
        if got.shape != ref.shape or not err <= 2e-3:
            raise SystemExit(f"{label}: ember differs from ORT (max err / max |ref| = {err:.2e})")
        fns[label] = fn
    fns["ORT"] = ort
    clock = {"wall": time.perf_counter, "thread": time.thread_time, "process": time.process_time}[args.clock]
    times = {name: [] for name in fns}
    for fn in fns.values():
        fn()
    for _ in range(args.rounds):
        for name, fn in fns.items():
            start = clock()
            for _ in range(args.calls):
                fn()
            times[name].append((clock() - start) / args.calls)
    first = args.variant[0].partition(":")[0]
    print(f"{args.model}, {args.threads} thread(s), {args.clock} clock, {args.rounds} rounds x {args.calls} calls")
    print(f"| variant | ember ms | ORT ms | ember / ORT | / {first} |\n|---|---|---|---|---|")
    for name in fns:
        if name == "ORT":
            continue
        to_ort = [e / o for e, o in zip(times[name], times["ORT"])]
        to_first = [e / f for e, f in zip(times[name], times[first])]
        print(f"| {name} | {statistics.median(times[name]) * 1e3:.2f} | {statistics.median(times['ORT']) * 1e3:.2f} | "
              f"{_spread(to_ort)} | {_spread(to_first)} |", flush=True)


if __name__ == "__main__":
    main()

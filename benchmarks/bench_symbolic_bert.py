"""The BERT encoder built once with symbolic batch and sequence length next to its
static-shape build, run at the static size, taking turns in one process (issue 10:
symbolic ÷ static within 1.1).

Both come from the ONNX export (``bench_model_zoo``: ``bert`` and ``bert_dyn``) through
``relax.build(mod, "llvm")``; their outputs are checked against each other first.
Each round times every build for ``--seconds``; the order alternates between rounds, and
the ratio is reported per round (median, min and max) so load on a shared machine, which
hits both builds of a round alike, mostly cancels out.

Run: python benchmarks/bench_symbolic_bert.py [--threads 1] [--rounds 15] [--seconds 0.5] [--cpu-time]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from common import set_threads

import bench_model_zoo as zoo


def _per_call(fn, seconds: float, clock=time.perf_counter) -> float:
    fn()
    number, start, wall = 0, clock(), time.perf_counter()
    while time.perf_counter() - wall < seconds:
        fn()
        number += 1
    return (clock() - start) / number


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=0.5, help="time per build per round")
    parser.add_argument("--cpu-time", action="store_true",
                        help="count the calling thread's CPU time, not wall time (1 thread on a loaded machine)")
    args = parser.parse_args()
    set_threads(args.threads)
    from bench_models import _ember, _first

    static_w, dyn_w = zoo.workload("bert", 1), zoo.workload("bert_dyn", 1)
    static, static_s, _ = _ember(static_w)
    dynamic, dynamic_s, _ = _ember(dyn_w)
    # both exports draw weights and input from seed 0: the outputs must agree
    err = float(np.max(np.abs(_first(static()) - _first(dynamic()))))
    builds = {"static": static, "symbolic": dynamic}
    times: dict[str, list[float]] = {k: [] for k in builds}
    for r in range(args.rounds):
        for name in (list(builds) if r % 2 == 0 else list(reversed(builds))):
            times[name].append(_per_call(builds[name], args.seconds, time.thread_time if args.cpu_time else time.perf_counter))
    ratios = [d / s for s, d in zip(times["static"], times["symbolic"])]
    st, dy = (statistics.median(times[k]) * 1e3 for k in ("static", "symbolic"))
    print(f"BERT encoder (6x384, seq 128, batch 1), {args.threads} thread(s), {args.rounds} rounds, "
          f"{'CPU' if args.cpu_time else 'wall'} time; "
          f"compile {static_s:.1f} s static, {dynamic_s:.1f} s symbolic; max abs diff {err:.1e}")
    print(f"static {st:.2f} ms, symbolic {dy:.2f} ms (medians); symbolic / static per round: "
          f"median {statistics.median(ratios):.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}")


if __name__ == "__main__":
    main()

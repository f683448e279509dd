"""How much more CPU work a model's run costs on 2 threads than on 1, for ember and ONNX Runtime.

One ember build runs with a team of 1 and of 2 threads (``set_num_threads`` between calls),
ORT with two sessions (1 and 2 intra-op threads); idle threads sleep (``OMP_WAIT_POLICY=PASSIVE``,
ORT's spinning off), so the CPU time of all the process's threads is the work done, cache
misses and cross-core traffic included, time idle at barriers not.  A ratio near 1 says
the second thread adds no work: whatever a 2-thread run loses in wall time against half the
1-thread time is idle time (imbalance, waits for a descheduled thread, wake-ups).  This can
be measured on a loaded machine, unlike the wall time at 2 threads.

Run: python benchmarks/bench_thread_work.py [--model resnet50] [--rounds 11]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before ember starts libgomp

from common import set_threads  # noqa: E402

import bench_model_zoo as zoo  # noqa: E402


def _ort(w, threads: int):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    sess = ort.InferenceSession(w.onnx_bytes, opts, providers=["CPUExecutionProvider"])
    return lambda: sess.run(None, w.inputs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--calls", type=int, default=3, help="calls per round and setting")
    args = parser.parse_args()
    set_threads(2)
    import bench_models as bm
    from ember.runtime.threading import set_num_threads

    w = zoo.workload(args.model, 1)
    ember, _, _ = bm._ember(w)
    runs = {("ember", 1): ember, ("ember", 2): ember, ("ORT", 1): _ort(w, 1), ("ORT", 2): _ort(w, 2)}
    times: dict = {key: [] for key in runs}
    for _ in range(args.rounds):
        for key in (*runs, *reversed(list(runs))):  # each setting early and late in the round
            set_num_threads(key[1])
            runs[key]()
            start = time.process_time()
            for _ in range(args.calls):
                runs[key]()
            times[key].append((time.process_time() - start) / args.calls)
    set_num_threads(2)
    print(f"{args.model}: CPU time of all threads per run (ms), idle threads sleeping, {args.rounds} rounds")
    print("| runtime | 1 thread | 2 threads | 2t / 1t per round |\n|---|---|---|---|")
    for name in ("ember", "ORT"):
        one, two = times[(name, 1)], times[(name, 2)]
        ratios = [b / a for a, b in zip(one, two)]
        print(f"| {name} | {statistics.median(one) * 1e3:.2f} | {statistics.median(two) * 1e3:.2f} | "
              f"{statistics.median(ratios):.3f} ({min(ratios):.2f}–{max(ratios):.2f}) |")


if __name__ == "__main__":
    main()

"""A whole model tuned with MetaSchedule next to its default build and ONNX Runtime.

The model (``--model``, from ``bench_model_zoo``: ResNet-50 by default) is imported from
ONNX, built once with the default pipeline and default schedules, then tuned with
``meta_schedule.tune_relax`` for at most ``--minutes`` (XGBoost cost model, evolutionary
search, every kernel seeded with its default schedule, the gradient task scheduler sharing
the budget across kernels) and built from the database with ``compile_relax``.  Default,
tuned and ONNX Runtime are then checked against each other and timed side by side,
interleaved, at the same thread count.  The per-task summary and the tuning curves (best
latency against trials and seconds) are written to the work directory and the curves
copied to ``benchmarks/figures/tuning_<model>.png``.

Candidates are timed with cold caches by default (``--cache cold``: each timed call on the
next of several copies of its arguments, so a layer reads its weights from beyond L2, as
in the model; the kernels' sum then matches the model's time, where hot it fell short by a
third on ResNet-50).

Run: python benchmarks/bench_tune_model.py [--model resnet50] [--minutes 30] [--threads 2] [--cache cold]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

import numpy as np

from common import machine, set_threads, vm_call

import bench_model_zoo as zoo
from bench_models import _first, _ort, _time_interleaved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--trials-per-iter", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--work-dir", default=None, help="keep the database here (default: a temporary dir)")
    parser.add_argument("--cache", choices=("cold", "hot"), default="cold",
                        help="time candidates with cold caches (each call on the next of several argument "
                             "copies, as a layer reads its weights in the model; default) or hot")
    args = parser.parse_args()
    set_threads(args.threads)

    import onnx

    from ember import meta_schedule as ms, relax
    from ember.relax.frontend.onnx import from_onnx
    from ember.target import Target

    w = zoo.workload(args.model, 1)
    target = Target(f"llvm -num-cores={args.threads}")
    work_dir = args.work_dir or tempfile.mkdtemp(prefix=f"ember_tune_{args.model}_")
    print(f"# {w.name}, batch 1, {args.threads} threads, {machine()}; tuning for {args.minutes:g} min "
          f"({args.cache} caches) into {work_dir}", flush=True)
    mod = from_onnx(onnx.load_from_string(w.onnx_bytes))

    start = time.perf_counter()
    default = relax.build(mod, target)
    default_compile = time.perf_counter() - start
    tasks = ms.relax_integration.extract_tasks(mod, target)
    print(f"default build {default_compile:.1f} s; {len(tasks)} distinct kernels to tune", flush=True)

    start = time.perf_counter()
    database = ms.relax_integration.tune_relax(
        mod, None, target, work_dir, max_trials_global=1_000_000, num_trials_per_iter=args.trials_per_iter,
        max_time=args.minutes * 60,
        runner=ms.LocalRunner(evaluator_config=ms.EvaluatorConfig(number=3, repeat=1, min_repeat_ms=20,
                                                                  enable_cpu_cache_flush=args.cache == "cold")))
    tuning = time.perf_counter() - start
    records = database.get_all_tuning_records()
    failed = sum(not r.is_valid for r in records)
    tuned = ms.relax_integration.compile_relax(database, mod, target)

    fns = {"ORT": _ort(w, args.threads), "default": vm_call(default, w.inputs), "tuned": vm_call(tuned, w.inputs)}
    want = _first(fns["ORT"]())
    for label in ("default", "tuned"):
        np.testing.assert_allclose(_first(fns[label]()), want, rtol=1e-3, atol=1e-3, err_msg=label)
    samples = _time_interleaved(fns, args.repeats, min_seconds=3.0)
    ms_of = {k: statistics.median(v) * 1e3 for k, v in samples.items()}
    spread = {k: (max(v) - min(v)) / statistics.median(v) * 100 for k, v in samples.items()}

    figures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "figures")
    curves = os.path.join(work_dir, "tuning_curves.png")
    if os.path.exists(curves):
        os.makedirs(figures, exist_ok=True)
        shutil.copy(curves, os.path.join(figures, f"tuning_{args.model}.png"))
    print(f"\ntuning {tuning / 60:.1f} min, {len(records)} candidates measured ({failed} failed); "
          f"summary: {os.path.join(work_dir, 'tuning_summary.md')}")
    print("| model | ORT ms | default ms | tuned ms | default / tuned | tuned / ORT | default / ORT |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {w.name} b1 | {ms_of['ORT']:.2f} ±{spread['ORT']:.0f}% | {ms_of['default']:.2f} ±{spread['default']:.0f}% "
          f"| {ms_of['tuned']:.2f} ±{spread['tuned']:.0f}% | {ms_of['default'] / ms_of['tuned']:.2f} "
          f"| {ms_of['tuned'] / ms_of['ORT']:.2f} | {ms_of['default'] / ms_of['ORT']:.2f} |")


if __name__ == "__main__":
    main()

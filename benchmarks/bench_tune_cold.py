"""Does timing candidates with cold caches pick what runs faster *in the model*?

A few of a model's kernels (``--tasks``: task indices of ``extract_tasks``; default the three
conv tasks with the largest weights) are tuned once per measurement mode, each task alone for
``--minutes`` (same search, same seed):

- ``hot``: every timed call on the same arrays (weights stay in L2 if they fit);
- ``cold``: ``EvaluatorConfig(enable_cpu_cache_flush=True)``, every timed call on the next of
  several argument copies that stream more than twice the L2 of all cores between reuses.

The model is then built with the default schedules and with each mode's database (only those
tasks differ) and, in interleaved rounds at the same thread count, timed as a whole and call
by call (``vm.profile``, CPU time of the calling thread at 1 thread); each picked kernel is
also timed alone, hot and cold.  A mode predicts the model when its "alone" column orders the
builds as the "in model" column does.

Run: python benchmarks/bench_tune_cold.py [--model resnet50] [--minutes 3] [--threads 1]
     [--tasks 22,28,29] [--modes hot,cold] [--rounds 9] [--cpu-time] [--work-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

from common import machine, set_threads

import bench_model_zoo as zoo


def _weight_bytes(task) -> int:
    from ember.meta_schedule.arg_info import ArgInfo

    infos = ArgInfo.from_entry_func(task.mod)
    sizes = [int(np.prod(i.shape)) * np.dtype(i.dtype).itemsize for i in infos[1:-1]]
    return max(sizes, default=0)


def _tune(tasks, target, mode: str, minutes: float, work_dir: str, per_iter: int):
    from ember import meta_schedule as ms
    from ember.meta_schedule.tune import tune_tasks
    from ember.meta_schedule.tune_context import TuneContext

    db = ms.database.JSONDatabase(work_dir=os.path.join(work_dir, mode))
    config = ms.EvaluatorConfig(number=3, repeat=1, min_repeat_ms=20, enable_cpu_cache_flush=mode == "cold")
    found = {}
    for n, t in tasks:
        ctx = TuneContext(t.mod, target=target, space_generator="post-order-apply",
                          search_strategy="evolutionary", task_name=t.task_name, rand_state=n)
        tune_tasks(tasks=[ctx], task_weights=[t.weight], work_dir=os.path.join(work_dir, mode, str(n)),
                   max_trials_global=1_000_000, num_trials_per_iter=per_iter, database=db,
                   runner=ms.LocalRunner(evaluator_config=config), max_time=minutes * 60, progress=False)
        state = db.last_tuning[0]
        found[n] = (state.default_secs, state.best_secs, state.trials, state.failed)
        print(f"  {mode} task {n}: {state.trials} trials ({state.failed} failed), default "
              f"{(state.default_secs or float('nan')) * 1e6:.0f} us, best {state.best_secs * 1e6:.0f} us "
              f"({mode} measure)", flush=True)
    return db, found


def _per_call(fn, number: int, clock) -> float:
    start = clock()
    for _ in range(number):
        fn()
    return (clock() - start) / number


def _kernel_alone(kernel, cold: bool) -> float:
    """CPU seconds per call of ``kernel`` on random arrays, hot or rotated over copies."""
    import ember as tvm
    from ember.meta_schedule.runner.measure import argument_copies, cold_bytes

    rng = np.random.default_rng(0)
    base = [tvm.nd.array(rng.uniform(-1, 1, p.shape).astype(p.dtype)) for p in kernel.info.params]
    copies = argument_copies(base, cold_bytes()) if cold else [base]
    for c in copies:
        kernel(*c)
    turn = iter(range(1 << 40))
    n = max(4, len(copies))
    return _per_call(lambda: kernel(*copies[next(turn) % len(copies)]), n, time.thread_time)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--minutes", type=float, default=3.0, help="tuning time per task and mode")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tasks", default="", help="comma-separated task indices (default: 3 largest-weight convs)")
    parser.add_argument("--modes", default="hot,cold")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--trials-per-iter", type=int, default=8)
    parser.add_argument("--work-dir", default=None)
    parser.add_argument("--cpu-time", action="store_true",
                        help="the tuner times candidates in CPU time of its thread (EMBER_MS_CLOCK=thread; 1 thread)")
    args = parser.parse_args()
    set_threads(args.threads)
    if args.cpu_time:
        os.environ["EMBER_MS_CLOCK"] = "thread"

    import onnx

    import ember as tvm
    from ember import meta_schedule as ms, relax
    from ember.relax.frontend.onnx import from_onnx
    from ember.target import Target

    w = zoo.workload(args.model, 1)
    target = Target(f"llvm -num-cores={args.threads}")
    work_dir = args.work_dir or tempfile.mkdtemp(prefix=f"ember_tune_cold_{args.model}_")
    mod = from_onnx(onnx.load_from_string(w.onnx_bytes))
    all_tasks = ms.relax_integration.extract_tasks(mod, target)
    if args.tasks:
        picked = [int(x) for x in args.tasks.split(",")]
    else:
        convs = [n for n, t in enumerate(all_tasks) if "conv2d" in t.task_name]
        picked = sorted(sorted(convs, key=lambda n: -_weight_bytes(all_tasks[n]))[:3])
    tasks = [(n, all_tasks[n]) for n in picked]
    print(f"# {w.name}, {args.threads} thread(s), {machine()}; {args.minutes:g} min per task and mode "
          f"into {work_dir}")
    for n, t in tasks:
        print(f"  task {n}: {t.task_name} (x{t.weight}, weights {_weight_bytes(t) / 2**20:.2f} MiB)")

    modes = args.modes.split(",")
    dbs, found = {}, {}
    for mode in modes:
        dbs[mode], found[mode] = _tune(tasks, target, mode, args.minutes, work_dir, args.trials_per_iter)

    builds = {"default": relax.build(mod, target)}
    for mode in modes:
        builds[mode] = ms.relax_integration.compile_relax(dbs[mode], mod, target)
    inputs = [tvm.nd.array(v) for v in w.inputs.values()]
    vms = {k: relax.VirtualMachine(ex, tvm.cpu()) for k, ex in builds.items()}
    want = vms["default"]["main"](*inputs)
    want = (want[0] if isinstance(want, (list, tuple)) else want).numpy()
    for k, vm in vms.items():
        got = vm["main"](*inputs)
        np.testing.assert_allclose((got[0] if isinstance(got, (list, tuple)) else got).numpy(), want,
                                   rtol=1e-3, atol=1e-3, err_msg=k)

    names = {n: set(t.dispatched) for n, t in tasks}
    model = {k: [] for k in builds}
    in_model = {(k, n): [] for k in builds for n, _ in tasks}
    alone = {(k, n, c): [] for k in builds for n, _ in tasks for c in (False, True)}
    for _ in range(args.rounds):
        for k, vm in vms.items():
            fn = vm["main"]
            model[k].append(_per_call(lambda: fn(*inputs), 3, time.thread_time))
            calls = vm.profile("main", *inputs, clock=time.thread_time).calls
            for n, _ in tasks:
                in_model[k, n].append(sum(s for c, s in calls if c in names[n]))
            for n, t in tasks:
                kernel = builds[k].kernels[sorted(x for x in names[n] if x in builds[k].kernels)[0]]
                for cold in (False, True):
                    alone[k, n, cold].append(_kernel_alone(kernel, cold) * t.weight)

    def med(xs):
        return statistics.median(xs) * 1e3

    print(f"\nCPU ms of the calling thread, median of {args.rounds} interleaved rounds "
          f"(kernels: summed over the task's calls)\n")
    print("| build | whole model | ratio to default (range) |")
    print("|---|---|---|")
    for k in builds:
        r = [a / b for a, b in zip(model[k], model["default"])]
        print(f"| {k} | {med(model[k]):.2f} | {statistics.median(r):.3f} ({min(r):.3f}-{max(r):.3f}) |")
    print("\n| task | build | tuner's best (its mode) | alone hot | alone cold | in model | in model / default |")
    print("|---|---|---|---|---|---|---|")
    for n, t in tasks:
        for k in builds:
            tuner = "" if k == "default" else f"{found[k][n][1] * 1e3 * t.weight:.2f}"
            r = [a / b for a, b in zip(in_model[k, n], in_model["default", n])]
            print(f"| {n} | {k} | {tuner} | {med(alone[k, n, False]):.2f} | {med(alone[k, n, True]):.2f} "
                  f"| {med(in_model[k, n]):.2f} | {statistics.median(r):.3f} ({min(r):.2f}-{max(r):.2f}) |")


if __name__ == "__main__":
    main()

"""Where a whole model's time goes that its kernels timed alone do not show.

For one model, by default at one thread in CPU time of the calling thread
(``time.thread_time``: time slices given to other processes do not count, so the figures
hold on a loaded machine).  At 2 threads the calling thread's CPU time misses the other
thread's work: ``--clock wall`` times what a run costs (only on a quiet machine), ``--clock
process`` the CPU time of all threads with idle threads asleep (``OMP_WAIT_POLICY=PASSIVE``,
ONNX Runtime's spinning off): the work both threads do, cache misses included, without the
waiting:

- the whole model on the VM's fast path, and ONNX Runtime's whole model, side by side;
- every kernel call inside the model, median (``--stat min``: least) over runs, in program
  order: timed around the native call on the VM's fast path (each kernel's ``_fn`` wrapped
  by a timer, ~0.3 µs), so the OpenMP workers see the same gaps between kernels as in an
  ordinary run (the checked call of ``vm.profile`` leaves them longer gaps);
- each call's kernel alone: *hot* (the same arrays every call, so its weights stay in the
  L2 cache) and with *cold weights* (its constant arguments rotated over copies that do not
  fit the L2 cache, as inside the model, where each layer's weights are read once per run);
- the time outside kernel calls (the VM itself and the timers: model time minus the calls'
  sum).  Kernels alone go through the checked Python call (a few µs each, not the VM's
  native fast path), so with many small kernels (MobileNetV2) their sum can exceed the model.

Run: python benchmarks/profile_between_kernels.py resnet50 [--runs 9] [--top 15]
     [--threads 2 --clock wall] [--calls] (every call in program order)
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import time

import numpy as np

from common import set_threads

import bench_model_zoo as zoo

L2_BYTES = 4 << 20  # per core on the benchmark machine; copies rotated must exceed it


CLOCK = time.thread_time  # main() sets the --clock chosen
STAT = statistics.median  # or min (--stat min: on a loaded machine, the runs no other process interrupted)


def _cpu_per_call(fn, number: int, rounds: int) -> list[float]:
    fn()
    out = []
    for _ in range(rounds):
        start = CLOCK()
        for _ in range(number):
            fn()
        out.append((CLOCK() - start) / number)
    return out


def _time_native_calls(kernels: dict) -> list:
    """Wrap every kernel's native entry point (before the VM writes its fast path) with a
    timer; returns the list each call appends (name, seconds) to."""
    log: list = []
    for name, kernel in kernels.items():
        def timed(args, n, _native=kernel._fn, _name=name, _log=log.append, _clock=CLOCK):
            start = _clock()
            code = _native(args, n)
            _log((_name, _clock() - start))
            return code
        kernel._fn = timed
    return log


def _kernel_alone(kernel, const_params: set, rng):
    """(hot, cold-weights): callables that time one round of ``kernel`` alone on random arrays
    of its shapes (seconds per call), or None for a kernel with symbolic or scalar parameters."""
    import ember as tvm

    params = kernel.info.params
    if any(p.kind != "buffer" or not all(isinstance(d, int) for d in p.shape) for p in params):
        return None

    def arrays():
        return [tvm.nd.array(rng.standard_normal(p.shape).astype(p.dtype) if "float" in p.dtype
                             else np.zeros(p.shape, p.dtype)) for p in params]

    base = arrays()
    const_bytes = sum(int(np.prod(params[i].shape)) * 4 for i in const_params) or 1
    copies = max(2, min(16, -(-8 * L2_BYTES // const_bytes)))
    sets = [base] + [[a if i not in const_params else tvm.nd.array(a.numpy() + 0) for i, a in enumerate(base)]
                     for _ in range(copies - 1)]
    turn = iter(range(1 << 40))
    return (lambda: _cpu_per_call(lambda: kernel(*base), 4, 1)[0],
            lambda: _cpu_per_call(lambda: kernel(*sets[next(turn) % copies]), copies, 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--clock", choices=("thread", "wall", "process"), default="thread")
    parser.add_argument("--stat", choices=("median", "min"), default="median")
    parser.add_argument("--calls", action="store_true", help="print every kernel call in program order")
    args = parser.parse_args()
    global CLOCK, STAT
    STAT = {"median": statistics.median, "min": min}[args.stat]
    CLOCK = {"thread": time.thread_time, "wall": time.perf_counter, "process": time.process_time}[args.clock]
    set_threads(args.threads)
    if args.clock == "process":
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before ember starts libgomp
    import onnx

    import ember as tvm
    from ember import relax
    from ember.relax.frontend.onnx import from_onnx
    from bench_model_variant import _ort

    w = zoo.workload(args.model, 1)
    ex = relax.build(from_onnx(onnx.load_from_string(w.onnx_bytes)), "llvm")
    kernels = ex.kernels
    vm = relax.VirtualMachine(ex, tvm.cpu())
    inputs = [tvm.nd.array(v) for v in w.inputs.values()]
    fn, ort = vm["main"], _ort(w, args.threads, spin=args.clock != "process")
    timed_vm = relax.VirtualMachine(ex, tvm.cpu())  # its fast path calls the timed entry points
    compiled = {k: kernels[k] for k in kernels.function_names if hasattr(kernels[k], "_fn")}
    originals = {k: f._fn for k, f in compiled.items()}
    log = _time_native_calls(compiled)
    timed_fn = timed_vm["main"]
    timed_fn(*inputs)
    for k, native in originals.items():  # the other VM's fast path already bound the originals
        compiled[k]._fn = native
    const_params: dict = collections.defaultdict(set)  # kernel → indices of constant arguments
    for instr in ex.functions["main"].instrs:
        if getattr(instr, "func", None) in kernels:
            const_params[instr.func] |= {i for i, a in enumerate(instr.args) if a.kind == "const"}
    rng = np.random.default_rng(0)
    log.clear()
    timed_fn(*inputs)
    names = [c for c, _ in log]
    timers = {k: _kernel_alone(kernels[k], const_params[k], rng) for k in set(names) if k in kernels}
    timers = {k: t for k, t in timers.items() if t is not None}
    model, ort_s, calls, rounds_alone = [], [], [], []
    for _ in range(args.runs):  # interleaved: ORT, the model, the model call by call, kernels alone
        ort_s += _cpu_per_call(ort, 3, 1)  # (first: ORT's threads spin on for a while after it)
        model += _cpu_per_call(lambda: fn(*inputs), 3, 1)
        log.clear()
        timed_fn(*inputs)
        calls.append(list(log))
        rounds_alone.append({k: (hot(), cold()) for k, (hot, cold) in timers.items()})
    ratio = statistics.median(a / b for a, b in zip(model, ort_s))

    in_model = [STAT(run[i][1] for run in calls) for i in range(len(names))]
    alone = {k: (STAT(r[k][0] for r in rounds_alone), STAT(r[k][1] for r in rounds_alone)) for k in timers}
    m = STAT(model)
    kcalls = [(n, t) for n, t in zip(names, in_model) if n in alone]
    per_round = [sum(t for n, t in run if n in alone) / sum(r[n][1] for n, _ in run if n in alone)
                 for run, r in zip(calls, rounds_alone)]
    in_sum = sum(t for _, t in kcalls)
    hot_sum = sum(alone[n][0] for n, _ in kcalls)
    cold_sum = sum(alone[n][1] for n, _ in kcalls)
    what = {"thread": "CPU ms of the calling thread", "wall": "wall ms", "process": "CPU ms of all threads"}[args.clock]
    print(f"# {args.model}, {args.threads} thread(s), {what} ({args.stat} of {args.runs})\n")
    print(f"whole model {m * 1e3:.2f}, ONNX Runtime {STAT(ort_s) * 1e3:.2f}, "
          f"ember/ORT {ratio:.3f} (median of per-round ratios)")
    print(f"{len(kcalls)} kernel calls: inside the model {in_sum * 1e3:.2f}, alone hot {hot_sum * 1e3:.2f}, "
          f"alone with cold weights {cold_sum * 1e3:.2f}; outside kernel calls {(m - in_sum) * 1e3:.2f} "
          f"(the VM and the timers)\ninside the model / alone with cold weights, per round: median {statistics.median(per_round):.3f} "
          f"[{min(per_round):.3f}–{max(per_round):.3f}]\n")
    if args.calls:
        print("| # | kernel | in model ms | alone hot ms | alone cold weights ms | model / cold |")
        print("|---|---|---|---|---|---|")
        for i, (n, t) in enumerate(kcalls):
            print(f"| {i} | {n} | {t * 1e3:.3f} | {alone[n][0] * 1e3:.3f} | {alone[n][1] * 1e3:.3f} | {t / alone[n][1]:.2f} |")
        print()
    rows = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for n, t in kcalls:
        r = rows[n]
        r[0] += 1
        r[1] += t
        r[2] += alone[n][0]
        r[3] += alone[n][1]
    print("| kernel | calls | in model ms | alone hot ms | alone cold weights ms | model / hot |")
    print("|---|---|---|---|---|---|")
    for n, (c, t, h, cw) in sorted(rows.items(), key=lambda kv: -(kv[1][1] - kv[1][2]))[:args.top]:
        print(f"| {n} | {c} | {t * 1e3:.2f} | {h * 1e3:.2f} | {cw * 1e3:.2f} | {t / h:.2f} |")


if __name__ == "__main__":
    main()

"""Whole models, untuned: ember next to ONNX Runtime, OpenVINO and PyTorch, in one process.

ember imports each ONNX model with ``relax.frontend.onnx.from_onnx`` and compiles it with
the default pipeline (``relax.build(mod, "llvm")``, default schedules, no tuning).  ONNX
Runtime runs the same ONNX bytes (CPU EP, all graph optimisations), OpenVINO too (CPU,
latency hint, f32); PyTorch eager (and ``torch.compile`` with ``--torch-compile``) run
the PyTorch module of the models written in PyTorch.  Every runtime gets the same
thread count (``--threads``, default 2).  ember's outputs are first checked against
ONNX Runtime's; the runtimes' repetitions are interleaved, and each figure is the median
over repetitions with its spread ((max − min) / median).  A model ember cannot import or
build yet is skipped with the reason.

Run: python benchmarks/bench_models.py [--models resnet50,bert] [--batches 1,8] [--threads 2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

import numpy as np

from common import machine, set_threads, vm_call

import bench_model_zoo as zoo


def _ort(w, threads):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(w.onnx_bytes, opts, providers=["CPUExecutionProvider"])
    return lambda: sess.run(None, w.inputs)


def _openvino(w, threads):
    import openvino as ov

    core = ov.Core()
    model = core.read_model(model=w.onnx_bytes, weights=b"")
    compiled = core.compile_model(model, "CPU", {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads,
                                                "INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    inputs = list(w.inputs.values())
    return lambda: request.infer(inputs)


def _torch(w, compiled: bool):
    import torch

    args = [torch.from_numpy(v) for v in w.inputs.values()]
    module = torch.compile(w.torch_module) if compiled else w.torch_module

    def run():
        with torch.inference_mode():
            return module(*args)

    return run


def _ember(w):
    """(callable, compile seconds, "onnx" | "nn") for ember's default build of ``w``: from the
    ONNX model, or from ``bench_model_zoo.ember_fallback`` while the importer lacks an op."""
    import onnx

    from ember import relax
    from ember.relax.frontend.onnx import from_onnx

    start = time.perf_counter()
    entry, how = "main", "onnx"
    try:
        mod = from_onnx(onnx.load_from_string(w.onnx_bytes))
    except Exception:
        fallback = zoo.ember_fallback(w)
        if fallback is None:
            raise
        (mod, entry), how = fallback, "nn"
    ex = relax.build(mod, "llvm")
    seconds = time.perf_counter() - start
    return vm_call(ex, w.inputs, entry), seconds, how


def _first(out) -> np.ndarray:
    while isinstance(out, list | tuple) or type(out).__name__ in ("Array", "Tuple", "OVDict"):
        if type(out).__name__ == "OVDict":
            out = list(out.values())
        out = out[0]
    return out.numpy() if hasattr(out, "numpy") else np.asarray(out)


def _time_interleaved(fns: dict, repeats: int, min_seconds: float, clock=time.perf_counter) -> dict:
    """name → list of seconds per call, one per repetition, runtimes taking turns.  ``clock``:
    ``time.thread_time`` counts only the calling thread's CPU time (1 thread, loaded machine)."""
    number = {}
    for name, fn in fns.items():
        fn()
        start = clock()
        fn()
        once = max(clock() - start, 1e-6)
        number[name] = max(1, int(min_seconds / repeats / once))
    samples = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = clock()
            for _ in range(number[name]):
                fn()
            samples[name].append((clock() - start) / number[name])
    return samples


def bench_one(name: str, batch: int, args) -> dict | None:
    w = zoo.workload(name, batch)
    if w is None:
        return None
    row = {"model": f"{w.name} b{batch}"}
    fns = {"ORT": _ort(w, args.threads)}
    reference = _first(fns["ORT"]())
    try:
        fns["OpenVINO"] = _openvino(w, args.threads)
    except Exception as err:  # noqa: BLE001 - a runtime we compare with may not take the model
        row["note"] = f"OpenVINO: {type(err).__name__}"
    if w.torch_module is not None:
        fns["PyTorch"] = _torch(w, False)
        if args.torch_compile:
            fns["torch.compile"] = _torch(w, True)
    try:
        ember_fn, seconds, how = _ember(w)
        if how != "onnx":
            row["note"] = "ember: built with relax.frontend.nn (ONNX import failed)"
        got = _first(ember_fn())
        scale = float(np.max(np.abs(reference))) or 1.0
        err = float(np.max(np.abs(got - reference))) / scale
        if got.shape != reference.shape or not err <= 2e-3:
            row["note"] = f"ember output differs from ORT (max err / max |ref| = {err:.2e})"
        else:
            fns = {"ember": ember_fn, **fns}
            row["compile s"] = f"{seconds:.1f}"
    except Exception as err:  # noqa: BLE001 - reported, the other runtimes still run
        text = " ".join(line.strip() for line in str(err).strip().splitlines())
        row["note"] = f"ember skipped: {type(err).__name__}: {text[:240]}"
    samples = _time_interleaved(fns, args.repeats, args.min_seconds)
    med = {k: statistics.median(v) for k, v in samples.items()}
    for k, v in samples.items():
        row[f"{k} ms"] = f"{med[k] * 1e3:.2f} ±{(max(v) - min(v)) / med[k] * 50:.0f}%"
    if "ember" in med:
        row["ember/ORT"] = med["ember"] / med["ORT"]
        best = min(med[k] for k in ("ORT", "OpenVINO") if k in med)
        row["ember/min(ORT,OV)"] = med["ember"] / best
        if "PyTorch" in med:
            row["ember/PyTorch"] = med["ember"] / med["PyTorch"]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(zoo.ALL), help=f"comma list from {', '.join(zoo.ALL)}")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--min-seconds", type=float, default=1.0, help="time per runtime per model")
    parser.add_argument("--torch-compile", action="store_true", help="also time torch.compile (slow to compile)")
    args = parser.parse_args()
    set_threads(args.threads)
    import torch

    torch.set_num_threads(args.threads)
    print(f"# whole models, untuned ({machine()}, {args.threads} threads)\n")
    columns = ["model", "ember ms", "ORT ms", "OpenVINO ms", "PyTorch ms", "torch.compile ms", "ember/ORT",
               "ember/min(ORT,OV)", "ember/PyTorch", "compile s", "note"]
    print("| " + " | ".join(columns) + " |\n|" + "---|" * len(columns), flush=True)
    rows = []
    for name in args.models.split(","):
        if name not in zoo.ALL:
            sys.exit(f"--models: unknown model {name!r}; known: {', '.join(zoo.ALL)}")
        for batch in (int(b) for b in args.batches.split(",")):
            row = bench_one(name, batch, args)
            if row is None:
                continue
            rows.append(row)
            cells = [f"{row[c]:.2f}" if isinstance(row.get(c), float) else str(row.get(c, "")) for c in columns]
            print("| " + " | ".join(cells) + " |", flush=True)
    for key in ("ember/ORT", "ember/min(ORT,OV)", "ember/PyTorch"):
        values = [r[key] for r in rows if key in r]
        if values:
            gm = math.exp(sum(math.log(v) for v in values) / len(values))
            print(f"\ngeometric mean {key}: {gm:.2f} over {len(values)} workloads", end="")
    print()


if __name__ == "__main__":
    main()

"""``ember bench MODEL.onnx --compare ort``: time ember's compiled model next to other runtimes."""

from __future__ import annotations

import os
import tempfile

import numpy as np

from .cmd_run import time_runs
from .model import compile_model, load_compiled, load_onnx, parse_input_shapes
from .ui import UsageError, table


def register(sub, common) -> None:
    p = sub.add_parser("bench", parents=[common], help="benchmark a model against other runtimes",
                       description="Compile an ONNX model (through the compile cache), time it, and time the "
                       "same model with other runtimes in the same process and thread count. Ratios > 1 mean "
                       "the other runtime is slower than ember.")
    p.add_argument("model", help="the ONNX model file")
    p.add_argument("--compare", default="ort", help="comma-separated: ort, openvino, torch (default: ort)")
    p.add_argument("--repeat", type=int, default=20, help="timed runs per runtime (default 20)")
    p.add_argument("--threads", type=int, default=os.cpu_count(), help="threads for every runtime")
    p.add_argument("--input-shapes", action="append", metavar="NAME:D1xD2x...", help="fix input shapes")
    p.add_argument("--target", default="llvm")
    p.set_defaults(handler=run)


def _ort(model_path: str, feeds: dict, threads: int):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    return lambda: session.run(None, feeds)


def _openvino(model_path: str, feeds: dict, threads: int):
    import openvino

    core = openvino.Core()
    compiled = core.compile_model(model_path, "CPU", {"INFERENCE_NUM_THREADS": threads})
    request = compiled.create_infer_request()
    return lambda: [request.infer(feeds)[out] for out in compiled.outputs]


def _torch(model_path: str, feeds: dict, threads: int):
    """PyTorch eager on the ONNX model converted by onnx2torch (an optional package)."""
    import torch
    from onnx2torch import convert

    torch.set_num_threads(threads)
    module = convert(model_path).eval()
    inputs = [torch.from_numpy(v) for v in feeds.values()]

    def run():
        with torch.no_grad():
            out = module(*inputs)
        return [o.numpy() for o in (out if isinstance(out, tuple | list) else [out])]

    return run


RUNTIMES = {"ort": ("ONNX Runtime", _ort), "openvino": ("OpenVINO", _openvino),
            "torch": ("PyTorch (onnx2torch)", _torch)}


def run(args, progress) -> int:
    names = [n.strip() for n in args.compare.split(",") if n.strip()]
    unknown = [n for n in names if n not in RUNTIMES]
    if unknown:
        raise UsageError(f"--compare: unknown runtime(s) {', '.join(unknown)} (known: {', '.join(RUNTIMES)})")
    if args.repeat < 1:
        raise UsageError(f"--repeat: expected a positive count, got {args.repeat}")
    load_onnx(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        library = os.path.join(tmp, "model.so")
        compile_model(args.model, library, parse_input_shapes(args.input_shapes), args.target, None, progress)
        model = load_compiled(library)
        feeds = model.random_inputs()
        inputs = model.arrange(feeds)
        reference = model.run(inputs)
        with progress.step(f"timing ember ({args.repeat} runs)"):
            ember_times = time_runs(lambda: model.run(inputs), args.repeat)
        ember_ms = min(ember_times) * 1e3
        rows = [["ember", float(np.mean(ember_times) * 1e3), ember_ms, 1.0, 0.0]]
        for name in names:
            label, make = RUNTIMES[name]
            try:
                fn = make(args.model, feeds, args.threads)
            except ImportError:
                progress.note(f"  {label} is not installed; skipped"
                              + (" (pip install onnx2torch torchvision)" if name == "torch" else ""))
                continue
            outs = fn()
            diff = max(float(np.max(np.abs(np.asarray(o, "float64") - r))) if r.size else 0.0
                       for o, r in zip(outs, reference))
            with progress.step(f"timing {label} ({args.repeat} runs)"):
                times = time_runs(fn, args.repeat)
            rows.append([label, float(np.mean(times) * 1e3), min(times) * 1e3, min(times) * 1e3 / ember_ms, diff])
    print(table(["runtime", "mean ms", "best ms", "best vs ember", "max |diff| vs ember"], rows,
                title=f"{os.path.basename(args.model)}, {args.threads} thread(s)"))
    return 0

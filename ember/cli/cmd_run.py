"""``ember run model.so --inputs in.npz``: run a compiled library (or an ONNX model directly)."""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from .model import compile_model, load_compiled, parse_input_shapes
from .ui import ModelError, UsageError, table


def register(sub, common) -> None:
    p = sub.add_parser("run", parents=[common], help="run a compiled model (or an ONNX model) on inputs",
                       description="Run a library written by `ember compile` (or an .onnx model, compiled "
                       "through the compile cache first). Inputs come from an .npz file keyed by input name; "
                       "without --inputs, random inputs are used.")
    p.add_argument("model", help="a compiled library (.so/.tar) or an ONNX model (.onnx)")
    p.add_argument("--inputs", metavar="IN.npz", help="input arrays keyed by input name (np.savez)")
    p.add_argument("--outputs", metavar="OUT.npz", help="write the outputs here, keyed by output name")
    p.add_argument("--print-time", action="store_true", help="time the model and print a table")
    p.add_argument("--repeat", type=int, default=10, help="timed runs for --print-time (default 10)")
    p.add_argument("--input-shapes", action="append", metavar="NAME:D1xD2x...", help="for .onnx models")
    p.add_argument("--target", default="llvm", help="for .onnx models (default: llvm)")
    p.set_defaults(handler=run)


def read_npz(path: str) -> dict[str, np.ndarray]:
    if not os.path.isfile(path):
        raise UsageError(f"--inputs: file {path!r} does not exist")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (ValueError, OSError) as err:
        raise ModelError(f"--inputs: {path!r} is not a readable .npz file ({err})") from None


def load_any(args, progress, tmp: str):
    if args.model.endswith(".onnx"):
        library = os.path.join(tmp, "model.so")
        compile_model(args.model, library, parse_input_shapes(args.input_shapes), args.target, None, progress)
        return load_compiled(library)
    with progress.step(f"loading {args.model}"):
        return load_compiled(args.model)


def time_runs(fn, repeat: int) -> list[float]:
    fn()  # warm-up
    times = []
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def run(args, progress) -> int:
    if args.repeat < 1:
        raise UsageError(f"--repeat: expected a positive count, got {args.repeat}")
    with tempfile.TemporaryDirectory() as tmp:
        model = load_any(args, progress, tmp)
        if args.inputs:
            feeds = read_npz(args.inputs)
        else:
            feeds = model.random_inputs()
            progress.note("  no --inputs: using random inputs")
        inputs = model.arrange(feeds)
        with progress.step("running"):
            outputs = model.run(inputs)
        names = model.output_names(len(outputs))
        rows = [[n, "x".join(map(str, o.shape)) or "scalar", str(o.dtype),
                 float(o.min()) if o.size else "-", float(o.max()) if o.size else "-",
                 float(o.astype("float64").mean()) if o.size else "-"] for n, o in zip(names, outputs)]
        print(table(["output", "shape", "dtype", "min", "max", "mean"], rows))
        if args.outputs:
            np.savez(args.outputs, **dict(zip(names, outputs)))
            print(f"wrote {args.outputs}")
        if args.print_time:
            times = time_runs(lambda: model.run(inputs), args.repeat)
            ms = [t * 1e3 for t in times]
            print(table(["runs", "mean ms", "min ms", "max ms"],
                        [[len(ms), sum(ms) / len(ms), min(ms), max(ms)]]))
    return 0

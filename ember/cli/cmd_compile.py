"""``ember compile MODEL.onnx -o model.so``: import, optimise and compile a model to a library."""

from __future__ import annotations

import os

from .model import compile_model, parse_input_shapes
from .ui import UsageError, table


def register(sub, common) -> None:
    p = sub.add_parser("compile", parents=[common], help="compile an ONNX model to a shared library",
                       description="Compile an ONNX model into one self-contained shared library (kernels, "
                       "program and weights). Load it with ember.runtime.load_module, `ember run`, or from C "
                       "(ember_runtime.h). Repeated compiles of the same model are served from the compile cache.")
    p.add_argument("model", help="the ONNX model file")
    p.add_argument("-o", "--output", help="the library to write (.so, or .tar of objects); default: MODEL.so")
    p.add_argument("--target", default="llvm", help="the target (default: llvm, this CPU)")
    p.add_argument("--input-shapes", action="append", metavar="NAME:D1xD2x...",
                   help="fix input shapes, e.g. data:1x3x224x224 (repeat or comma-separate for several inputs)")
    p.add_argument("--tuning-db", metavar="DIR", help="apply the tuning records in DIR (from `ember tune`)")
    p.add_argument("--no-cache", action="store_true", help="compile even when the compile cache has the model")
    p.set_defaults(handler=run)


def run(args, progress) -> int:
    output = args.output or os.path.splitext(os.path.basename(args.model))[0] + ".so"
    if not output.endswith((".so", ".tar")):
        raise UsageError(f"-o/--output: expected a .so or .tar file name, got {output!r}")
    progress.note(f"ember compile {args.model} -> {output}")
    info = compile_model(args.model, output, parse_input_shapes(args.input_shapes), args.target, args.tuning_db,
                         progress, use_cache=not args.no_cache)
    rows = [["input", i.get("onnx_name", i["name"]), "x".join(map(str, i["shape"])) or "scalar", i["dtype"]]
            for i in info["inputs"]]
    rows += [["output", o["name"], "x".join(map(str, o["shape"])) or "scalar", o["dtype"]] for o in info["outputs"]]
    print(table(["", "name", "shape", "dtype"], rows))
    print(f"wrote {output} ({os.path.getsize(output) / 1e6:.2f} MB, {info['kernels']} kernels"
          f"{', from the compile cache' if info['cached'] else ''})")
    print(f"C API: {'native entry point included' if info['native_entry'] else 'no native entry (' + info['entry'] + ')'}")
    return 0

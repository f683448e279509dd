"""``ember inspect MODEL.onnx``: inputs, outputs, operator counts and what ember cannot import yet."""

from __future__ import annotations

import collections

from .model import _graph_inputs, load_onnx
from .ui import table


def register(sub, common) -> None:
    p = sub.add_parser("inspect", parents=[common], help="show a model's inputs, outputs and operators",
                       description="Show an ONNX model's inputs, outputs and operator counts, and which "
                       "operators ember cannot import yet (nothing is compiled).")
    p.add_argument("model", help="the ONNX model file")
    p.set_defaults(handler=run)


def _dims(value_info) -> str:
    tt = value_info.type.tensor_type
    if not tt.HasField("shape"):
        return "?"
    return "x".join(str(d.dim_value) if d.HasField("dim_value") else (d.dim_param or "?") for d in tt.shape.dim)


def _dtype(value_info) -> str:
    import onnx

    code = value_info.type.tensor_type.elem_type
    return onnx.helper.tensor_dtype_to_np_dtype(code).name if code else "?"


def run(args, progress) -> int:
    from ember.relax.frontend.onnx import unsupported_ops

    model = load_onnx(args.model)
    graph = model.graph
    opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
    opset_text = ", ".join(f"{domain or 'ai.onnx'} {version}" for domain, version in opsets.items())
    print(f"{args.model}: ONNX IR {model.ir_version}, opsets {opset_text}, producer "
          f"{model.producer_name or '?'} {model.producer_version}".rstrip())
    print(f"{len(graph.node)} nodes, {len(graph.initializer)} initializers")
    print()
    rows = [["input", vi.name, _dims(vi), _dtype(vi)] for vi in _graph_inputs(model)]
    rows += [["output", vi.name, _dims(vi), _dtype(vi)] for vi in graph.output]
    print(table(["", "name", "shape", "dtype"], rows))
    print()
    missing = unsupported_ops(graph, opsets)
    missing_types = {(d, op) for d, op, _ in missing}
    counts = collections.Counter(((n.domain or "ai.onnx"), n.op_type) for n in graph.node)
    rows = [[op if domain == "ai.onnx" else f"{domain}.{op}", count,
             "no" if (domain, op) in missing_types else "yes"]
            for (domain, op), count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    print(table(["operator", "count", "ember imports it"], rows))
    print()
    if missing:
        print(f"ember cannot import {len(missing_types)} operator type(s) yet: "
              f"{', '.join(sorted(op for _, op in missing_types))}")
    else:
        print("ember can import every operator of this model")
    return 0

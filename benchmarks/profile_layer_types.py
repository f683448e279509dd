"""Where a model's time goes, per layer type, in ember, ONNX Runtime and OpenVINO side by side:
ember's kernels timed alone (``profile_kernels.py``) with their weights cold in L2 as inside the
model (``--hot``: the same arrays every call, as before round 5), ORT's own profiler (``enable_profiling``)
and OpenVINO's per-layer counters (``PERF_COUNT``), each runtime's layers sorted into the same
types (dense conv by kernel size and stride, depthwise conv, pooling, fully connected, layout
reorders, the rest), same thread count.

Run: python benchmarks/profile_layer_types.py mobilenet_v2 [--threads 2] [--runs 20] [--batch 8]
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import tempfile

import numpy as np

from common import set_threads

import bench_model_zoo as zoo
import profile_kernels as pk


def _conv_type(kh: int, kw: int, stride: int, depthwise: bool) -> str:
    kind = "depthwise conv" if depthwise else "conv"
    return f"{kind} {kh}x{kw}" + (f"/s{stride}" if stride > 1 else "")


_EPILOGUE = ("Relu", "Clip", "Add", "Mul", "BatchNormalization", "Sum", "Sigmoid")


def _onnx_types(w) -> dict:
    """ONNX node name (and its first output's name) → layer type."""
    import onnx

    model = onnx.load_from_string(w.onnx_bytes)
    inits = {i.name: list(i.dims) for i in model.graph.initializer}
    out = {}
    for node in model.graph.node:
        if node.op_type in _EPILOGUE:  # fused into the conv before it by every runtime
            kind = next((out[i] for i in node.input if out.get(i, "").startswith(("conv", "depthwise"))), None)
            if kind is not None:
                for name in [node.name, *node.output]:
                    out[name] = kind
                continue
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "Conv":
            wshape = inits.get(node.input[1], [0, 0, 0, 0])
            kh, kw = (list(attrs.get("kernel_shape", [])) or wshape[2:4] or [0, 0])[:2]
            group = attrs.get("group", 1)
            kind = _conv_type(kh, kw, max(attrs.get("strides", [1])), group > 1 and wshape[1] == 1)
        elif node.op_type in ("MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"):
            kind = "pooling"
        elif node.op_type in ("Gemm", "MatMul"):
            kind = "fully connected / matmul"
        elif node.op_type == "Concat":
            kind = "concat"
        else:
            kind = "other"
        for name in [node.name, *node.output]:
            if name:
                out[name] = kind
    return out


def ember_types(w, threads: int, hot: bool = False) -> dict:
    """layer type → ms per run (kernels timed alone, times their calls; weights cold unless ``hot``)."""
    import time

    import ember as tvm
    from ember.tir import PrimFunc

    mod, _ = pk.scheduled_module(w)
    counts = pk.call_counts(mod)
    constants = pk.constant_params(mod)
    rng = np.random.default_rng(0)
    totals: dict = collections.defaultdict(float)
    for gv, func in mod.functions.items():
        if not isinstance(func, PrimFunc) or not counts[gv.name_hint]:
            continue
        shapes = [[int(d) for d in func.buffer_map[p].shape] for p in func.params]
        dtypes = [str(func.buffer_map[p].dtype) for p in func.params]
        kernel = tvm.build(func, target="llvm")
        arrays = [tvm.nd.array(rng.standard_normal(s).astype(t) if "float" in t else np.zeros(s, t))
                  for s, t in zip(shapes, dtypes)]
        sets = [arrays] if hot else pk.cold_weight_sets(arrays, constants[gv.name_hint])
        kernel(*arrays)
        number, start = 0, time.perf_counter()
        while time.perf_counter() - start < 0.1:
            kernel(*sets[number % len(sets)])
            number += 1
        per = (time.perf_counter() - start) / number
        totals[_ember_type(gv.name_hint, func)] += per * counts[gv.name_hint] * 1e3
    return totals


def _winograd_product(name: str, blocks: list) -> bool:
    """The batched GEMM of a Winograd convolution: a matmul of ``(α, α, tiles, C)`` by
    ``(α, α, C, K)`` (α = m + 2 for m = 2, 4, 6), the GEMM ``WinogradConv2D`` emits."""
    if "matmul" not in name:
        return False
    shapes = [[int(d) for d in r.buffer.shape] for b in blocks for r in b.reads]
    return bool(shapes) and all(len(s) == 4 and s[0] == s[1] and s[0] in (4, 6, 8) for s in shapes)


def _ember_type(name: str, func) -> str:
    from ember.tir import Block, IterVarType, post_order_visit

    blocks: list = []
    post_order_visit(func.body, lambda n: blocks.append(n) if isinstance(n, Block) else None)
    for b in blocks:
        red = [int(iv.dom.extent) for iv in b.iter_vars if iv.iter_type == IterVarType.CommReduce]
        if "conv" not in b.name_hint or len(red) < 2:
            continue
        kh, kw = (red[1], red[2]) if len(red) == 4 else (red[-2], red[-1])
        out = b.writes[0].buffer
        weight = next((r.buffer for r in b.reads if len(r.buffer.shape) >= 4
                       and [int(d) for d in r.buffer.shape[2:4]] == [kh, kw] and r.buffer is not out), None)
        data = [r.buffer for r in b.reads if r.buffer is not out and r.buffer is not weight]
        if weight is None or not data:
            continue
        data_w, out_w = int(data[0].shape[3]), int(out.shape[3])
        stride = max(1, round((data_w - kw) / (out_w - 1))) if out_w > 1 else 1
        return _conv_type(kh, kw, stride, int(weight.shape[1]) == 1)
    if "winograd" in name or _winograd_product(name, blocks):
        return "conv 3x3"  # Winograd: the transforms and the α² GEMMs between them
    if "conv" in name:
        return "conv (unclassified)"
    if "pool" in name:
        return "pooling"
    if "matmul" in name or "dense" in name:
        return "fully connected / matmul"
    if "layout_transform" in name:
        return "layout reorder"
    if "concat" in name:
        return "concat"
    return "other"


def ort_types(w, threads: int, runs: int) -> dict:
    import onnxruntime as ort

    types = _onnx_types(w)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    tmp = tempfile.mkdtemp()
    opts.enable_profiling = True
    opts.profile_file_prefix = os.path.join(tmp, "ort")
    sess = ort.InferenceSession(w.onnx_bytes, opts, providers=["CPUExecutionProvider"])
    for _ in range(3):
        sess.run(None, w.inputs)
    sess.end_profiling()
    sess = ort.InferenceSession(w.onnx_bytes, opts, providers=["CPUExecutionProvider"])
    for _ in range(runs):
        sess.run(None, w.inputs)
    path = sess.end_profiling()
    totals: dict = collections.defaultdict(float)
    for ev in json.load(open(path)):
        if ev.get("cat") != "Node" or not ev["name"].endswith("_kernel_time"):
            continue
        node = ev["name"][: -len("_kernel_time")]
        op = ev.get("args", {}).get("op_name", "")
        kind = types.get(node) or types.get(node.split("_nchwc")[0]) or _by_op(op, node)
        if "Conv" in op and not kind.startswith(("conv", "depthwise")):
            kind = _by_op(op, node)
        totals[kind] += ev["dur"] / 1e3 / runs
    for f in glob.glob(os.path.join(tmp, "*")):
        os.remove(f)
    return totals


def _by_op(op: str, node: str) -> str:
    if op in ("ReorderInput", "ReorderOutput", "Transpose"):
        return "layout reorder"
    if "Pool" in op:
        return "pooling"
    if op in ("Gemm", "MatMul", "FusedGemm", "FusedMatMul"):
        return "fully connected / matmul"
    if "Conv" in op:
        return "conv (unclassified)"
    return "other"


def openvino_types(w, threads: int, runs: int) -> dict:
    import openvino as ov

    types = _onnx_types(w)
    core = ov.Core()
    model = core.read_model(model=w.onnx_bytes, weights=b"")
    compiled = core.compile_model(model, "CPU", {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads,
                                                "INFERENCE_PRECISION_HINT": "f32", "PERF_COUNT": "YES"})
    request = compiled.create_infer_request()
    inputs = list(w.inputs.values())
    for _ in range(3):
        request.infer(inputs)
    totals: dict = collections.defaultdict(float)
    def name_type(info):
        return types.get(info.node_name.split("/WithoutBiases")[0])

    for _ in range(runs):
        request.infer(inputs)
        infos = list(request.get_profiling_info())
        for n, info in enumerate(infos):
            if info.status.name != "EXECUTED":
                continue
            ms = info.real_time.total_seconds() * 1e3 if hasattr(info.real_time, "total_seconds") else info.real_time / 1e3
            kind = name_type(info)
            if kind is None and "Convolution" in info.node_type:
                # a conv renamed by a fold (BN into "Multiply_*"): the epilogue fused into it, listed
                # next (not run on its own), still carries the ONNX name
                kind = next((name_type(i) for i in infos[n + 1:n + 4] if name_type(i)), None)
            totals[kind or _ov_type(info.node_type, info.node_name)] += ms / runs
    return totals


def _ov_type(node_type: str, name: str) -> str:
    if node_type in ("Reorder", "Transpose"):
        return "layout reorder"
    if "Pool" in node_type:
        return "pooling"
    if node_type in ("FullyConnected", "MatMul"):
        return "fully connected / matmul"
    if "Convolution" in node_type:
        return "conv (unclassified)"
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=1, help="the workload's batch (exported models have 1 and 8)")
    parser.add_argument("--hot", action="store_true", help="ember's kernels on the same arrays every call")
    args = parser.parse_args()
    set_threads(args.threads)
    w = zoo.workload(args.model, args.batch)
    if w is None:
        parser.error(f"{args.model} has no batch {args.batch}")
    cols = {"ember": ember_types(w, args.threads, args.hot), "ORT": ort_types(w, args.threads, args.runs)}
    try:
        cols["OpenVINO"] = openvino_types(w, args.threads, args.runs)
    except Exception as err:  # noqa: BLE001 - report and go on without it
        print(f"OpenVINO profile failed: {err}")
    kinds = sorted(set().union(*cols.values()), key=lambda k: -cols["ember"].get(k, 0.0))
    names = list(cols)
    print(f"{args.model} batch {args.batch}, {args.threads} threads, ms per run by layer type (ember: kernels timed alone, "
          f"weights {'hot' if args.hot else 'cold'})")
    print("| layer type | " + " | ".join(names) + " | ember / ORT | ember / OpenVINO |")
    print("|---|" + "---|" * (len(names) + 2))
    for k in kinds + ["total"]:
        vals = {n: (sum(cols[n].values()) if k == "total" else cols[n].get(k, 0.0)) for n in names}

        print(f"| {k} | " + " | ".join(f"{vals[n]:.2f}" for n in names) +
              f" | {_ratio(vals, 'ORT')} | {_ratio(vals, 'OpenVINO')} |")


def _ratio(vals: dict, other: str) -> str:
    return f"{vals['ember'] / vals[other]:.2f}" if vals.get(other, 0) > 0 and vals["ember"] > 0 else "—"


if __name__ == "__main__":
    main()

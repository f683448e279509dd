"""Exported models: the Python VM, the same library loaded back, and its native entry point
(the C API, called through ctypes) on one model, side by side; ONNX Runtime for reference.

Run: python benchmarks/bench_export.py [--threads 2] [--batch 1]
The model is the MLP 784→256→ReLU→10 (relay.testing.mlp shapes differ; this one matches
bench_mlp.py), weights bound as constants.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from common import set_threads, time_call  # noqa: E402


def build(batch: int):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w1 = rng.uniform(-0.05, 0.05, (256, 784)).astype("float32")
    w2 = rng.uniform(-0.05, 0.05, (10, 256)).astype("float32")
    b1, b2 = np.zeros(256, "float32"), np.zeros(10, "float32")
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], transB=1)]
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 784])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 10])],
                              [numpy_helper.from_array(v, n) for n, v in (("w1", w1), ("b1", b1), ("w2", w2),
                                                                          ("b2", b2))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()
    set_threads(args.threads)
    import onnxruntime

    import ember
    from ember import relax
    from ember.runtime.c_api import build_runtime

    model = build(args.batch)
    exe = relax.build(relax.frontend.onnx.from_onnx(model), target="llvm")
    x = np.random.default_rng(1).standard_normal((args.batch, 784)).astype("float32")
    vm = relax.VirtualMachine(exe, ember.cpu())
    xa = ember.nd.array(x)
    rows = [("Python VM, in-process build", time_call(lambda: vm["main"](xa)))]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mlp.so")
        exe.export_library(path)
        loaded = relax.VirtualMachine(ember.runtime.load_module(path), ember.cpu())
        rows.append(("Python VM, exported .so loaded back", time_call(lambda: loaded["main"](xa))))
        lib = ctypes.CDLL(build_runtime().library)
        lib.ember_model_load.restype = ctypes.c_void_p
        lib.ember_model_load.argtypes = [ctypes.c_char_p]
        lib.ember_model_run.argtypes = [ctypes.c_void_p]
        handle = lib.ember_model_load(path.encode())
        assert handle, lib.ember_last_error
        set_input = lib.ember_model_set_input
        set_input.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        set_input(handle, 0, xa._dltensor_addr)
        run = lib.ember_model_run
        rows.append(("native entry (C API: ember_model_run via ctypes)", time_call(lambda: run(handle))))
        lib.ember_model_free.argtypes = [ctypes.c_void_p]
        lib.ember_model_free(handle)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = args.threads
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    rows.append(("ONNX Runtime", time_call(lambda: session.run(None, {"x": x}))))
    base = rows[0][1]
    print(f"MLP 784→256→10, batch {args.batch}, {args.threads} thread(s)")
    print("| runner | µs per call | vs Python VM |\n|---|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds * 1e6:.1f} | {seconds / base:.2f}× |")


if __name__ == "__main__":
    main()

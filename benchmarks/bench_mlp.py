"""The issue's MLP (784 → 256 → ReLU → 10) written with ``relax.frontend.nn``, compiled with
``relax.get_pipeline("zero")`` + ``relax.build`` for llvm and run on the VM, next to PyTorch
eager and ONNX Runtime with the same weights and thread count, at batch 1 and 32.

ember is measured twice: compiled for the exact batch (static shapes) and once for a
symbolic batch dim ("batch") serving both sizes.  The ONNX model is built with the
``onnx`` package's helper API (Gemm → Relu → Gemm, symbolic batch).  Ratios are
ember time / reference time (below 1 means ember is faster).

Run: python benchmarks/bench_mlp.py [--threads N]
"""

from __future__ import annotations

import argparse

from common import machine, set_threads, table, time_call

BATCHES = (1, 32)


def mlp_module():
    from ember.relax.frontend import nn

    class MLPModel(nn.Module):
        def __init__(self):
            self.fc1 = nn.Linear(784, 256)
            self.relu1 = nn.ReLU()
            self.fc2 = nn.Linear(256, 10)

        def forward(self, x):
            return self.fc2(self.relu1(self.fc1(x)))

    return MLPModel()


def build_ember(batch):
    """A VM function for ``batch`` (an int, or a name for a symbolic dim)."""
    import ember
    from ember import relax
    from ember.relax.frontend import nn

    mod, _ = mlp_module().export_tvm(spec={"forward": {"x": nn.spec.Tensor((batch, 784), "float32")}})
    exe = relax.build(relax.get_pipeline("zero")(mod), target="llvm")
    return relax.VirtualMachine(exe, ember.cpu())["forward"]


def onnx_session(weights, threads: int):
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    names = ["fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "fc1_weight", "fc1_bias"], ["h"], transB=1),
         helper.make_node("Relu", ["h"], ["r"]),
         helper.make_node("Gemm", ["r", "fc2_weight", "fc2_bias"], ["y"], transB=1)],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 784])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 10])],
        initializer=[numpy_helper.from_array(w, n) for n, w in zip(names, weights)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads, opts.inter_op_num_threads = threads, 1
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--min-seconds", type=float, default=0.5, help="time per measurement round set")
    args = parser.parse_args()
    set_threads(args.threads)

    import numpy as np

    import ember

    rng = np.random.default_rng(0)
    weights = [rng.uniform(-0.05, 0.05, s).astype("float32") for s in ((256, 784), (256,), (10, 256), (10,))]
    nd_weights = [ember.nd.array(w) for w in weights]
    symbolic = build_ember("batch")

    try:
        import torch

        torch.set_num_threads(args.threads)
        torch_model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
        with torch.no_grad():
            for p, w in zip(torch_model.parameters(), weights):
                p.copy_(torch.from_numpy(w))
    except ImportError:
        torch = None
    try:
        session = onnx_session(weights, args.threads)
    except ImportError:
        session = None

    rows = []
    for batch in BATCHES:
        x = rng.standard_normal((batch, 784)).astype("float32")
        expect = np.maximum(x @ weights[0].T + weights[1], 0) @ weights[2].T + weights[3]
        x_nd = ember.nd.array(x)
        static = build_ember(batch)
        times = {}
        for what, fn in (("ember (static)", static), ("ember (symbolic batch)", symbolic)):
            np.testing.assert_allclose(fn(x_nd, *nd_weights).numpy(), expect, rtol=1e-4, atol=1e-5)
            times[what] = time_call(lambda fn=fn, x_nd=x_nd: fn(x_nd, *nd_weights), min_seconds=args.min_seconds)
        if torch is not None:
            tx = torch.from_numpy(x)
            with torch.inference_mode():
                np.testing.assert_allclose(torch_model(tx).numpy(), expect, rtol=1e-4, atol=1e-5)
                times["PyTorch eager"] = time_call(lambda tx=tx: torch_model(tx), min_seconds=args.min_seconds)
        if session is not None:
            feed = {"x": x}
            np.testing.assert_allclose(session.run(None, feed)[0], expect, rtol=1e-4, atol=1e-5)
            times["ONNX Runtime"] = time_call(lambda feed=feed: session.run(None, feed), min_seconds=args.min_seconds)
        flops = 2 * batch * (784 * 256 + 256 * 10)
        for what, t in times.items():
            row = {"batch": batch, "runtime": what, "us/call": f"{t * 1e6:.1f}", "GFLOP/s": f"{flops / t / 1e9:.2f}"}
            if "ember" in what:
                for ref in ("PyTorch eager", "ONNX Runtime"):
                    if ref in times:
                        row[f"ember/{ref.split()[0]}"] = f"{t / times[ref]:.2f}"
            rows.append(row)

    print(f"# MLP 784-256-10 inference ({machine()}, {args.threads} threads)\n")
    print(table(rows, ["batch", "runtime", "us/call", "GFLOP/s", "ember/PyTorch", "ember/ONNX"]))


if __name__ == "__main__":
    main()

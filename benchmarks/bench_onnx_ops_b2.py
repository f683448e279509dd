"""Single-op ONNX models from the importer's B2 families (Resize, Attention, QLinearMatMul,
TopK, ScatterND, NonMaxSuppression) imported with ``from_onnx``, built for llvm and run on
the VM, next to ONNX Runtime with the same thread count.  Ratio = ember / ORT (below 1:
ember faster).  NMS runs ember's numpy-backed packed function (data-dependent output).

Run: python benchmarks/bench_onnx_ops_b2.py [--threads N]
"""

from __future__ import annotations

import argparse

from common import machine, set_threads, table, time_call


def cases():
    import numpy as np
    from onnx import TensorProto as T
    from onnx import helper, numpy_helper

    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype("float32")  # noqa: E731
    init = numpy_helper.from_array
    yield ("Resize linear 1x3x112x112 -> 224", [helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear")],
           [("x", T.FLOAT, [1, 3, 112, 112])], [("y", T.FLOAT, [1, 3, 224, 224])],
           [init(np.array([1, 1, 2, 2], "float32"), "s")], {"x": f32(1, 3, 112, 112)}, 19)
    yield ("Resize nearest 1x16x56x56 x2", [helper.make_node("Resize", ["x", "", "s"], ["y"], mode="nearest")],
           [("x", T.FLOAT, [1, 16, 56, 56])], [("y", T.FLOAT, [1, 16, 112, 112])],
           [init(np.array([1, 1, 2, 2], "float32"), "s")], {"x": f32(1, 16, 56, 56)}, 19)
    yield ("Attention 1x8x128x64 causal", [helper.make_node("Attention", ["q", "k", "v"], ["y"], is_causal=1)],
           [(n, T.FLOAT, [1, 8, 128, 64]) for n in "qkv"], [("y", T.FLOAT, [1, 8, 128, 64])], [],
           {n: f32(1, 8, 128, 64) for n in "qkv"}, 23)
    yield ("Attention 1x8x128x64 bool mask", [helper.make_node("Attention", ["q", "k", "v", "m"], ["y"])],
           [(n, T.FLOAT, [1, 8, 128, 64]) for n in "qkv"] + [("m", T.BOOL, [1, 1, 128, 128])],
           [("y", T.FLOAT, [1, 8, 128, 64])], [],
           {**{n: f32(1, 8, 128, 64) for n in "qkv"}, "m": rng.random((1, 1, 128, 128)) > 0.2}, 23)
    q = [init(np.float32(0.02), "as"), init(np.uint8(128), "az"),
         init(rng.integers(0, 255, (256, 256)).astype("uint8"), "b"), init(np.float32(0.01), "bs"),
         init(np.uint8(100), "bz"), init(np.float32(0.5), "ys"), init(np.uint8(120), "yz")]
    yield ("QLinearMatMul 128x256x256 u8", [helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
                                                             ["y"])],
           [("a", T.UINT8, [128, 256])], [("y", T.UINT8, [128, 256])], q,
           {"a": rng.integers(0, 255, (128, 256)).astype("uint8")}, 13)
    yield ("TopK k=10 of 8x1000", [helper.make_node("TopK", ["x", "k"], ["v", "i"])], [("x", T.FLOAT, [8, 1000])],
           [("v", T.FLOAT, [8, 10]), ("i", T.INT64, [8, 10])], [init(np.array([10], "int64"), "k")],
           {"x": f32(8, 1000)}, 13)
    yield ("ScatterND 64 rows into 1024x64", [helper.make_node("ScatterND", ["x", "i", "u"], ["y"])],
           [("x", T.FLOAT, [1024, 64]), ("u", T.FLOAT, [64, 64])], [("y", T.FLOAT, [1024, 64])],
           [init(rng.choice(1024, (64, 1), replace=False).astype("int64"), "i")],
           {"x": f32(1024, 64), "u": f32(64, 64)}, 13)
    boxes = rng.uniform(0, 100, (1, 200, 4)).astype("float32")
    boxes[..., 2:] = boxes[..., :2] + rng.uniform(5, 30, (1, 200, 2))
    yield ("NMS 200 boxes x 4 classes", [helper.make_node("NonMaxSuppression", ["b", "s", "m", "iou"], ["y"])],
           [("b", T.FLOAT, [1, 200, 4]), ("s", T.FLOAT, [1, 4, 200])], [("y", T.INT64, ["n", 3])],
           [init(np.array([20], "int64"), "m"), init(np.array([0.5], "float32"), "iou")],
           {"b": boxes, "s": rng.random((1, 4, 200)).astype("float32")}, 11)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--min-seconds", type=float, default=0.3)
    args = parser.parse_args()
    set_threads(args.threads)

    import onnxruntime as ort
    from onnx import helper

    import ember
    from ember import relax
    from ember.relax.frontend.onnx import from_onnx

    rows = []
    for name, nodes, ins, outs, inits, feeds, opset in cases():
        graph = helper.make_graph(nodes, "b2", [helper.make_tensor_value_info(*v) for v in ins],
                                  [helper.make_tensor_value_info(*v) for v in outs], initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = args.threads, 1
        sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        mod, params = relax.frontend.detach_params(from_onnx(model))
        vm = relax.VirtualMachine(relax.build(mod, "llvm"), ember.cpu())
        args_nd = [ember.nd.array(feeds[p.name_hint]) for p in mod["main"].params if p.name_hint in feeds]
        args_nd += params.get("main", [])
        fn = vm["main"]
        t_ember = time_call(lambda fn=fn, a=args_nd: fn(*a), args.min_seconds)
        t_ort = time_call(lambda s=sess, f=feeds: s.run(None, f), args.min_seconds)
        rows.append({"op": name, "ember us": f"{t_ember * 1e6:.0f}", "ORT us": f"{t_ort * 1e6:.0f}",
                     "ember/ORT": f"{t_ember / t_ort:.2f}"})
        print(rows[-1], flush=True)
    print(f"\n{machine()}, {args.threads} thread(s)\n")
    print(table(rows, ["op", "ember us", "ORT us", "ember/ORT"]))


if __name__ == "__main__":
    main()

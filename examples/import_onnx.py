"""Import an ONNX model, compile it and run it; compare with ONNX Runtime.

Run: python examples/import_onnx.py [MODEL.onnx]   (without a path: a small CNN made here)
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import ember
from ember import relax


def small_cnn() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype("float32") * 0.2, "w"),
               numpy_helper.from_array(rng.standard_normal((10, 8)).astype("float32") * 0.2, "fc")]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1)]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def main(path: str | None = None):
    model = onnx.load(path) if path else small_cnn()
    mod = relax.frontend.onnx.from_onnx(model)  # Relax IR: mod.show() prints it
    exe = relax.build(mod, target="llvm")  # legalize, fuse, schedule, generate code
    vm = relax.VirtualMachine(exe, ember.cpu())
    initializers = {t.name for t in model.graph.initializer}
    feeds = {}
    for vi in model.graph.input:
        if vi.name not in initializers:
            shape = [d.dim_value or 1 for d in vi.type.tensor_type.shape.dim]
            feeds[vi.name] = np.random.default_rng(1).standard_normal(shape).astype("float32")
    out = vm["main"](*feeds.values())
    out = out[0] if isinstance(out, tuple | list) else out

    import onnxruntime

    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)[0]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)
    print(f"ONNX model: {len(model.graph.node)} nodes → {len(exe.kernels.function_names)} kernels; "
          f"output {tuple(out.shape)} matches ONNX Runtime")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

"""Small ONNX models made in code for the classic-API and CLI tests."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def small_cnn(seed: int = 0, batch: int = 1) -> onnx.ModelProto:
    """data (batch, 3, 8, 8) → Conv 3x3 → BatchNorm → Relu → MaxPool → Flatten → Gemm → Softmax."""
    rng = np.random.default_rng(seed)
    inits = {
        "conv_w": rng.standard_normal((4, 3, 3, 3)).astype("float32") * 0.3,
        "conv_b": rng.standard_normal(4).astype("float32") * 0.1,
        "bn_s": rng.uniform(0.5, 1.5, 4).astype("float32"),
        "bn_b": rng.standard_normal(4).astype("float32") * 0.1,
        "bn_m": rng.standard_normal(4).astype("float32") * 0.1,
        "bn_v": rng.uniform(0.5, 1.5, 4).astype("float32"),
        "fc_w": rng.standard_normal((5, 64)).astype("float32") * 0.2,
        "fc_b": rng.standard_normal(5).astype("float32") * 0.1,
    }
    nodes = [
        helper.make_node("Conv", ["data", "conv_w", "conv_b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "bn_s", "bn_b", "bn_m", "bn_v"], ["b"]),
        helper.make_node("Relu", ["b"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["g"], transB=1),
        helper.make_node("Softmax", ["g"], ["prob"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "small_cnn",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, [batch, 3, 8, 8])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [batch, 5])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def run_onnxruntime(model: onnx.ModelProto, feeds: dict) -> list:
    import onnxruntime

    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)

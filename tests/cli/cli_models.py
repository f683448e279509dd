"""ONNX models for the command-line tests: a small CNN made in code, and the ONNX test
suite's light ResNet-50 with random weights in place of its constant ones."""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LIGHT_RESNET50 = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light",
                              "light_resnet50.onnx")


def small_cnn(path: str, seed: int = 0) -> str:
    """x (1, 3, 8, 8) → Conv → Relu → GlobalAveragePool → Flatten → Gemm: logits (1, 5)."""
    rng = np.random.default_rng(seed)
    inits = [numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype("float32") * 0.3, "w"),
             numpy_helper.from_array(rng.standard_normal(4).astype("float32") * 0.1, "b"),
             numpy_helper.from_array(rng.standard_normal((5, 4)).astype("float32"), "fc_w"),
             numpy_helper.from_array(rng.standard_normal(5).astype("float32"), "fc_b")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["logits"], transB=1)]
    graph = helper.make_graph(nodes, "small_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def with_unsupported_op(path: str) -> str:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    node = helper.make_node("FancyOp", ["x"], ["y"], domain="com.example")
    model = helper.make_model(helper.make_graph([node], "g", [x], [y]),
                              opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def random_weights_resnet50(path: str, seed: int = 0) -> str:
    """The light ResNet-50 with its ConstantOfShape weights replaced by random initializers
    (He-scaled convolutions, batch norms near identity), so the output is not uniform."""
    model = onnx.load(LIGHT_RESNET50)
    rng = np.random.default_rng(seed)
    shapes = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    role = {}
    for node in model.graph.node:
        for i, name in enumerate(node.input):
            role[name] = (node.op_type, i)
    keep, new_inits = [], []
    for node in model.graph.node:
        if node.op_type != "ConstantOfShape" or node.input[0] not in shapes:
            keep.append(node)
            continue
        shape = tuple(int(d) for d in shapes[node.input[0]])
        op, index = role.get(node.output[0], ("", 0))
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        if op in ("Conv", "Gemm") and index == 1:
            value = rng.standard_normal(shape) * np.sqrt(1.0 / fan_in)
        elif op == "BatchNormalization":
            value = {1: rng.uniform(0.8, 1.2, shape), 2: rng.uniform(-0.1, 0.1, shape),
                     3: rng.uniform(-0.1, 0.1, shape), 4: rng.uniform(0.8, 1.2, shape)}[index]
        else:
            value = rng.uniform(-0.1, 0.1, shape)
        new_inits.append(numpy_helper.from_array(value.astype("float32"), node.output[0]))
    del model.graph.node[:]
    model.graph.node.extend(keep)
    model.graph.initializer.extend(new_inits)
    model.ir_version = max(model.ir_version, 4)  # initializers need not be listed as inputs
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path

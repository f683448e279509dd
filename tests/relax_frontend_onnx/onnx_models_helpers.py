"""Real networks for the ONNX importer tests: ONNX's packaged "light" models (weights as
ConstantOfShape nodes, all equal) with random weights, cut before the final Softmax."""

from __future__ import annotations

import os

import numpy as np
import onnx
from onnx import numpy_helper

LIGHT_DIR = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")


def light_model(name: str, seed: int = 0) -> onnx.ModelProto:
    """``light_<name>.onnx`` with each ConstantOfShape weight replaced by a random
    initializer (scaled by 1/sqrt(fan-in) so activations stay finite) and the output
    taken before the last Softmax."""
    model = onnx.load(os.path.join(LIGHT_DIR, f"light_{name}.onnx"))
    rng = np.random.default_rng(seed)
    graph = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    keep = []
    new_inits = [t for t in graph.initializer]
    for node in graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in inits:
            shape = [int(d) for d in inits[node.input[0]]]
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            if len(shape) == 1:  # biases, batch-norm statistics
                value = rng.uniform(0.5, 1.5, shape)
            else:
                value = rng.standard_normal(shape) / np.sqrt(fan_in)
            new_inits.append(numpy_helper.from_array(value.astype("float32"), node.output[0]))
        else:
            keep.append(node)
    softmax = [n for n in keep if n.op_type == "Softmax"]
    if softmax:
        last = softmax[-1]
        keep.remove(last)
        logits = last.input[0]
    del graph.node[:]
    graph.node.extend(keep)
    del graph.initializer[:]
    graph.initializer.extend(new_inits)
    if softmax:  # Softmax keeps the shape: the logits have the output's type
        graph.output[0].name = logits
    model.ir_version = max(model.ir_version, 4)  # initializers need not be graph inputs
    return model


def input_feed(model: onnx.ModelProto, seed: int = 1) -> dict[str, np.ndarray]:
    inits = {t.name for t in model.graph.initializer}
    rng = np.random.default_rng(seed)
    feeds = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        feeds[vi.name] = rng.standard_normal(shape).astype("float32")
    return feeds

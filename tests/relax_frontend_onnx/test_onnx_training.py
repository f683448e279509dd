"""ai.onnx.preview.training optimisers (Adagrad, Momentum, Adam) against ONNX's reference."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto as TP
from onnx import helper
from onnx.reference import ReferenceEvaluator

from onnx_helpers import run_ember

_DOMAIN = "ai.onnx.preview.training"


def _model(op, groups, attrs):
    n = 2
    names = [f"{g}{i}" for g in groups for i in range(n)]
    out_groups = [g for g in groups if g != "G"]
    outs = [f"{g}{i}_new" for g in out_groups for i in range(n)]
    node = helper.make_node(op, ["R", "T"] + names, outs, domain=_DOMAIN, **attrs)
    inputs = [helper.make_tensor_value_info("R", TP.FLOAT, []), helper.make_tensor_value_info("T", TP.INT64, [])]
    inputs += [helper.make_tensor_value_info(nm, TP.FLOAT, [3]) for nm in names]
    outputs = [helper.make_tensor_value_info(nm, TP.FLOAT, [3]) for nm in outs]
    graph = helper.make_graph([node], "t", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(_DOMAIN, 1)])
    model.ir_version = 8
    return model, names


@pytest.mark.parametrize("op,groups,attrs", [
    ("Adagrad", "XGH", {"decay_factor": 0.1, "epsilon": 1e-5, "norm_coefficient": 0.01}),
    ("Momentum", "XGV", {"alpha": 0.9, "beta": 0.5, "mode": "standard", "norm_coefficient": 0.01}),
    ("Momentum", "XGV", {"alpha": 0.9, "beta": 0.5, "mode": "nesterov", "norm_coefficient": 0.0}),
    ("Adam", "XGVH", {"alpha": 0.8, "beta": 0.95, "epsilon": 1e-5, "norm_coefficient": 0.01,
                      "norm_coefficient_post": 0.02}),
])
@pytest.mark.parametrize("step", [0, 3])
def test_optimizer_matches_reference(op, groups, attrs, step):
    model, names = _model(op, groups, attrs)
    rng = np.random.RandomState(0)
    feeds = {"R": np.array(0.1, np.float32), "T": np.array(step, np.int64)}
    feeds.update({nm: rng.uniform(0.1, 1.0, 3).astype(np.float32) for nm in names})
    expected = ReferenceEvaluator(model).run(None, feeds)
    got = run_ember(model, feeds)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)

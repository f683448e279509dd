"""ai.onnx.ml Binarizer, ArrayFeatureExtractor and TreeEnsemble against ONNX's reference."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from onnx_helpers import run_ember

_ML = "ai.onnx.ml"


def _model(node, inputs, outputs, ml_opset):
    graph = helper.make_graph([node], "ml", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(_ML, ml_opset)])
    model.ir_version = 10
    return model


def _check(model, feeds, transform=None):
    got = run_ember(model, feeds)
    expected = ReferenceEvaluator(model).run(None, feeds)
    if transform is not None:  # the reference leaves post_transform out
        expected = [transform(e.astype("float64")) for e in expected]
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


def test_binarizer_and_array_feature_extractor():
    x = np.random.RandomState(0).standard_normal((3, 4)).astype("float32")
    _check(_model(helper.make_node("Binarizer", ["x"], ["y"], domain=_ML, threshold=0.3),
                  [("x", TP.FLOAT, [3, 4])], [("y", TP.FLOAT, [3, 4])], 1), {"x": x})
    afe = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"], domain=_ML)
    _check(_model(afe, [("x", TP.FLOAT, [3, 4]), ("i", TP.INT64, [3])], [("y", TP.FLOAT, [3, 3])], 1),
           {"x": x, "i": np.array([3, 0, 3], "int64")})
    _check(_model(afe, [("x", TP.FLOAT, [4]), ("i", TP.INT64, [2])], [("y", TP.FLOAT, [1, 2])], 1),
           {"x": x[0], "i": np.array([1, 2], "int64")})


@pytest.mark.parametrize("aggregate,post", [(0, 0), (1, 2), (2, 0), (3, 1)])
def test_tree_ensemble(aggregate, post):
    # tree 0: node0 x0 <= 0.5 ? node1 : leaf1;  node1 x1 in {1, 3} ? leaf0 : leaf2
    # tree 1: node2 x1 > 2 ? leaf3 : leaf4
    node = helper.make_node(
        "TreeEnsemble", ["x"], ["y"], domain=_ML, aggregate_function=aggregate, post_transform=post, n_targets=3,
        tree_roots=[0, 2], nodes_featureids=[0, 1, 1],
        nodes_modes=numpy_helper.from_array(np.array([0, 6, 3], np.uint8)),
        nodes_splits=numpy_helper.from_array(np.array([0.5, 0.0, 2.0], np.float32)),
        nodes_truenodeids=[1, 0, 3], nodes_trueleafs=[0, 1, 1], nodes_falsenodeids=[1, 2, 4],
        nodes_falseleafs=[1, 1, 1], membership_values=numpy_helper.from_array(np.array([1, 3, np.nan], np.float32)),
        leaf_targetids=[0, 1, 2, 0, 2],
        leaf_weights=numpy_helper.from_array(np.array([1.0, -2.0, 0.5, 3.0, -1.0], np.float32)))
    model = _model(node, [("x", TP.FLOAT, [5, 2])], [("y", TP.FLOAT, [5, 3])], 5)
    x = np.array([[0.1, 1.0], [0.2, 2.0], [0.9, 3.0], [0.5, 3.0], [0.7, 0.0]], "float32")
    def softmax(y):
        e = np.exp(y - y.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    transform = {0: None, 1: softmax, 2: lambda y: 1 / (1 + np.exp(-y))}[post]
    _check(model, {"x": x}, transform)

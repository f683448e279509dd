"""ONNX random generators (shapes, dtypes, seeding, distributions — values cannot match
another implementation's generator) and the loss ops that import through their ONNX
function bodies, against ONNX Runtime."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_helpers import check_against_ort, make_model, run_ember

F, I64 = TensorProto.FLOAT, TensorProto.INT64
RNG = np.random.default_rng(0)


def test_random_normal_and_uniform_shapes_seed_and_moments():
    nodes = [helper.make_node("RandomNormal", [], ["a"], shape=[200, 50], mean=2.0, scale=0.5, seed=3.0),
             helper.make_node("RandomUniformLike", ["x"], ["b"], low=-1.0, high=3.0, seed=4.0)]
    model = make_model(nodes, [("x", F, [100, 100])], [("a", F, [200, 50]), ("b", F, [100, 100])], opset=18)
    feeds = {"x": np.zeros((100, 100), "float32")}
    a, b = run_ember(model, feeds)
    assert a.shape == (200, 50) and a.dtype == np.float32 and b.shape == (100, 100)
    assert abs(a.mean() - 2.0) < 0.05 and abs(a.std() - 0.5) < 0.05
    assert b.min() >= -1.0 and b.max() <= 3.0 and abs(b.mean() - 1.0) < 0.05
    a2, b2 = run_ember(model, feeds)
    np.testing.assert_array_equal(a, a2)  # a seed makes the model deterministic
    np.testing.assert_array_equal(b, b2)


def test_bernoulli_and_multinomial():
    nodes = [helper.make_node("Bernoulli", ["p"], ["c"], seed=1.0),
             helper.make_node("Multinomial", ["lg"], ["d"], sample_size=7, seed=2.0, dtype=TensorProto.INT64)]
    model = make_model(nodes, [("p", F, [4]), ("lg", F, [2, 3])], [("c", F, [4]), ("d", I64, [2, 7])], opset=18)
    logits = np.log(np.array([[1e-6, 1, 1e-6], [1, 1e-6, 1e-6]], "float32"))
    c, d = run_ember(model, {"p": np.array([0, 1, 0, 1], "float32"), "lg": logits})
    np.testing.assert_array_equal(c, [0, 1, 0, 1])
    assert d.dtype == np.int64 and d.shape == (2, 7)
    np.testing.assert_array_equal(d, [[1] * 7, [0] * 7])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_softmax_cross_entropy_loss_with_weights_and_ignore_index(reduction):
    node = helper.make_node("SoftmaxCrossEntropyLoss", ["s", "t", "w"], ["y"], reduction=reduction, ignore_index=1)
    out = [3, 2] if reduction == "none" else []
    model = make_model(node, [("s", F, [3, 4, 2]), ("t", I64, [3, 2])], [("y", F, out)],
                       [numpy_helper.from_array(np.array([0.5, 1, 2, 1], "float32"), "w")], opset=13)
    check_against_ort(model, {"s": RNG.standard_normal((3, 4, 2)).astype("float32"),
                              "t": np.array([[0, 1], [3, 2], [1, 2]], "int64")})


def test_negative_log_likelihood_loss():
    node = helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"], reduction="mean")
    model = make_model(node, [("x", F, [4, 5]), ("t", I64, [4])], [("y", F, [])], opset=13)
    check_against_ort(model, {"x": RNG.standard_normal((4, 5)).astype("float32"),
                              "t": np.array([0, 4, 2, 2], "int64")})



def test_dropout_training_mode_matches_reference_with_seed():
    from onnx import TensorProto as TP
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    node = helper.make_node("Dropout", ["x", "r", "t"], ["y", "m"], seed=3)
    graph = helper.make_graph([node], "d", [helper.make_tensor_value_info("x", TP.FLOAT, [4, 5]),
                                            helper.make_tensor_value_info("r", TP.FLOAT, []),
                                            helper.make_tensor_value_info("t", TP.BOOL, [])],
                              [helper.make_tensor_value_info("y", TP.FLOAT, [4, 5]),
                               helper.make_tensor_value_info("m", TP.BOOL, [4, 5])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    x = np.random.RandomState(1).standard_normal((4, 5)).astype("float32")
    for training in (True, False):
        feeds = {"x": x, "r": np.array(0.4, "float32"), "t": np.array(training)}
        y, m = run_ember(model, feeds)
        ref_y, ref_m = ReferenceEvaluator(model).run(None, feeds)
        np.testing.assert_allclose(y, ref_y, rtol=1e-6)
        np.testing.assert_array_equal(m, ref_m)

"""com.microsoft contrib operators (Gelu family, Skip/EmbedLayerNormalization, Attention)
against ONNX Runtime, which implements them."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_helpers import run_ember, run_ort

F = TensorProto.FLOAT


def _model(nodes, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, "ms", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                              [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
                              initializer=[numpy_helper.from_array(v, n) for n, v in inits])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model


def _check(model, feeds, rtol=1e-4, atol=1e-5):
    expected = run_ort(model, feeds)
    got = run_ember(model, feeds)
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("op,extra", [("Gelu", {}), ("FastGelu", {}), ("QuickGelu", {"alpha": 1.5}),
                                      ("BiasGelu", {}), ("FastGelu", {"bias": True})])
def test_gelu_family(op, extra):
    x = RNG.standard_normal((2, 3, 8)).astype("float32")
    b = RNG.standard_normal((8,)).astype("float32")
    has_bias = op == "BiasGelu" or extra.pop("bias", False)
    node = helper.make_node(op, ["x", "b"] if has_bias else ["x"], ["y"], domain="com.microsoft", **extra)
    model = _model([node], [("x", F, [2, 3, 8])], [("y", F, [2, 3, 8])], [("b", b)] if has_bias else [])
    _check(model, {"x": x})


@pytest.mark.parametrize("with_bias", [False, True])
def test_skip_layer_normalization(with_bias):
    x, skip = (RNG.standard_normal((2, 4, 16)).astype("float32") for _ in range(2))
    inits = [("g", RNG.standard_normal(16).astype("float32")), ("be", RNG.standard_normal(16).astype("float32"))]
    names = ["x", "skip", "g", "be"]
    if with_bias:
        inits.append(("bi", RNG.standard_normal(16).astype("float32")))
        names.append("bi")
    node = helper.make_node("SkipLayerNormalization", names, ["y", "", "", "s"], domain="com.microsoft",
                            epsilon=1e-5)
    model = _model([node], [("x", F, [2, 4, 16]), ("skip", F, [2, 4, 16])],
                   [("y", F, [2, 4, 16]), ("s", F, [2, 4, 16])], inits)
    _check(model, {"x": x, "skip": skip})


def test_embed_layer_normalization():
    batch, seq, hidden = 2, 5, 8
    inits = [("w", RNG.standard_normal((20, hidden)).astype("float32")),
             ("p", RNG.standard_normal((16, hidden)).astype("float32")),
             ("sg", RNG.standard_normal((2, hidden)).astype("float32")),
             ("g", RNG.standard_normal(hidden).astype("float32")), ("be", RNG.standard_normal(hidden).astype("float32"))]
    node = helper.make_node("EmbedLayerNormalization", ["ids", "seg", "w", "p", "sg", "g", "be", "mask"],
                            ["y", "mi"], domain="com.microsoft", epsilon=1e-5)
    i32 = TensorProto.INT32
    model = _model([node], [("ids", i32, [batch, seq]), ("seg", i32, [batch, seq]), ("mask", i32, [batch, seq])],
                   [("y", F, [batch, seq, hidden]), ("mi", i32, [batch])], inits)
    feeds = {"ids": RNG.integers(0, 20, (batch, seq)).astype("int32"),
             "seg": RNG.integers(0, 2, (batch, seq)).astype("int32"),
             "mask": np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], "int32")}
    _check(model, feeds)


@pytest.mark.parametrize("mask_kind", [None, "lengths", "raw"])
@pytest.mark.parametrize("unidirectional", [0, 1])
def test_attention(mask_kind, unidirectional):
    batch, seq, hidden, heads = 2, 4, 8, 2
    inits = [("w", (RNG.standard_normal((hidden, 3 * hidden)) * 0.3).astype("float32")),
             ("b", RNG.standard_normal(3 * hidden).astype("float32"))]
    names = ["x", "w", "b"]
    inputs = [("x", F, [batch, seq, hidden])]
    feeds = {"x": RNG.standard_normal((batch, seq, hidden)).astype("float32")}
    if mask_kind == "lengths":
        names.append("m")
        inputs.append(("m", TensorProto.INT32, [batch]))
        feeds["m"] = np.array([2, 4], "int32")
    elif mask_kind == "raw":
        names.append("m")
        inputs.append(("m", TensorProto.INT32, [batch, seq]))
        feeds["m"] = np.array([[1, 1, 0, 1], [1, 1, 1, 1]], "int32")
    node = helper.make_node("Attention", names, ["y"], domain="com.microsoft", num_heads=heads,
                            unidirectional=unidirectional)
    model = _model([node], inputs, [("y", F, [batch, seq, hidden])], inits)
    _check(model, feeds)


def test_attention_with_past():
    batch, seq, past, hidden, heads = 1, 2, 3, 8, 2
    inits = [("w", (RNG.standard_normal((hidden, 3 * hidden)) * 0.3).astype("float32")),
             ("b", RNG.standard_normal(3 * hidden).astype("float32"))]
    node = helper.make_node("Attention", ["x", "w", "b", "", "past"], ["y", "present"], domain="com.microsoft",
                            num_heads=heads, unidirectional=1)
    model = _model([node], [("x", F, [batch, seq, hidden]), ("past", F, [2, batch, heads, past, hidden // heads])],
                   [("y", F, [batch, seq, hidden]), ("present", F, [2, batch, heads, past + seq, hidden // heads])],
                   inits)
    feeds = {"x": RNG.standard_normal((batch, seq, hidden)).astype("float32"),
             "past": RNG.standard_normal((2, batch, heads, past, hidden // heads)).astype("float32")}
    _check(model, feeds)

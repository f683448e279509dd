"""ONNX Attention (opset 23/24) native converter against ONNX Runtime, and the ops that
import through their function bodies (RotaryEmbedding)."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnx_helpers import check_against_ort, make_model, run_ember

F = TensorProto.FLOAT
RNG = np.random.default_rng(0)


def _model(nodes, inputs, outputs, opset=23):
    model = make_model(nodes, inputs, outputs, opset=opset)
    model.ir_version = 10
    return model


def _feeds(specs):
    return {n: RNG.standard_normal(s).astype("float32") for n, s in specs}


@pytest.mark.parametrize("causal", [0, 1])
def test_attention_4d_gqa(causal):
    node = helper.make_node("Attention", ["q", "k", "v"], ["y"], is_causal=causal)
    specs = [("q", (1, 4, 3, 8)), ("k", (1, 2, 5, 8)), ("v", (1, 2, 5, 8))]
    model = _model(node, [(n, F, list(s)) for n, s in specs], [("y", F, [1, 4, 3, 8])])
    check_against_ort(model, _feeds(specs), rtol=1e-4)


def test_attention_3d_with_past_bool_mask_and_present():
    node = helper.make_node("Attention", ["q", "k", "v", "m", "pk", "pv"], ["y", "ok", "ov"],
                            q_num_heads=2, kv_num_heads=2, is_causal=1, scale=0.3)
    specs = [("q", (2, 3, 8)), ("k", (2, 3, 8)), ("v", (2, 3, 8)), ("pk", (2, 2, 4, 4)), ("pv", (2, 2, 4, 4))]
    inputs = [(n, F, list(s)) for n, s in specs] + [("m", TensorProto.BOOL, [3, 7])]
    outs = [("y", F, [2, 3, 8]), ("ok", F, [2, 2, 7, 4]), ("ov", F, [2, 2, 7, 4])]
    model = _model(node, inputs, outs)
    feeds = _feeds(specs)
    feeds["m"] = RNG.random((3, 7)) > 0.3
    check_against_ort(model, feeds, rtol=1e-4)


def test_attention_softcap_float_mask_and_qk_output_matches_reference():
    from onnx.reference import ReferenceEvaluator

    node = helper.make_node("Attention", ["q", "k", "v", "m"], ["y", "", "", "qk"], softcap=2.0,
                            qk_matmul_output_mode=3)
    specs = [("q", (1, 2, 3, 4)), ("k", (1, 2, 6, 4)), ("v", (1, 2, 6, 4)), ("m", (1, 1, 3, 4))]
    model = _model(node, [(n, F, list(s)) for n, s in specs], [("y", F, [1, 2, 3, 4]), ("qk", F, [1, 2, 3, 6])])
    feeds = _feeds(specs)
    want = ReferenceEvaluator(model).run(None, feeds)
    got = run_ember(model, feeds)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_attention_nonpad_kv_seqlen_matches_reference():
    from onnx.reference import ReferenceEvaluator

    node = helper.make_node("Attention", ["q", "k", "v", "", "", "", "n"], ["y"], is_causal=1)
    specs = [("q", (2, 2, 1, 4)), ("k", (2, 2, 5, 4)), ("v", (2, 2, 5, 4))]
    model = _model(node, [(n, F, list(s)) for n, s in specs] + [("n", TensorProto.INT64, [2])],
                   [("y", F, [2, 2, 1, 4])], opset=24)
    feeds = _feeds(specs)
    feeds["n"] = np.array([3, 5], "int64")
    np.testing.assert_allclose(run_ember(model, feeds)[0], ReferenceEvaluator(model).run(None, feeds)[0],
                               rtol=1e-5, atol=1e-6)


def test_rotary_embedding_through_function_body():
    node = helper.make_node("RotaryEmbedding", ["x", "c", "s", "p"], ["y"])
    specs = [("x", (1, 2, 3, 8)), ("c", (4, 4)), ("s", (4, 4))]
    model = _model(node, [(n, F, list(s)) for n, s in specs] + [("p", TensorProto.INT64, [1, 3])],
                   [("y", F, [1, 2, 3, 8])])
    feeds = _feeds(specs)
    feeds["p"] = np.array([[0, 2, 3]], "int64")
    check_against_ort(model, feeds, rtol=1e-4)

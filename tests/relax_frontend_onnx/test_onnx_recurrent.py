"""ONNX RNN / GRU / LSTM (unrolled) against ONNX Runtime: directions, biases, initial
states, sequence_lens, peepholes, clip, activations and layout."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx_helpers import check_against_ort, make_model, run_ember

from ember.relax.frontend.onnx import ONNXImportError, from_onnx

F, I32 = TensorProto.FLOAT, TensorProto.INT32
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def rnn_model(op, seq=4, batch=3, inp=5, hidden=6, direction="forward", bias=True, init=True,
              seq_lens=False, peephole=False, layout=0, **attrs):
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[op]
    rng = np.random.default_rng(7)
    w = (rng.standard_normal((dirs, g * hidden, inp)) * 0.4).astype("float32")
    r = (rng.standard_normal((dirs, g * hidden, hidden)) * 0.4).astype("float32")
    inits = [helper.make_tensor("W", F, w.shape, w.ravel()), helper.make_tensor("R", F, r.shape, r.ravel())]
    names = ["X", "W", "R"]
    if bias:
        b = (rng.standard_normal((dirs, 2 * g * hidden)) * 0.2).astype("float32")
        inits.append(helper.make_tensor("B", F, b.shape, b.ravel()))
    names.append("B" if bias else "")
    inputs = [("X", F, [batch, seq, inp] if layout else [seq, batch, inp])]
    names.append("lens" if seq_lens else "")
    if seq_lens:
        inputs.append(("lens", I32, [batch]))
    state = [batch, dirs, hidden] if layout else [dirs, batch, hidden]
    names.append("h0" if init else "")
    if init:
        inputs.append(("h0", F, state))
    if op == "LSTM":
        names.append("c0" if init else "")
        if init:
            inputs.append(("c0", F, state))
        if peephole:
            p = (rng.standard_normal((dirs, 3 * hidden)) * 0.3).astype("float32")
            inits.append(helper.make_tensor("P", F, p.shape, p.ravel()))
            names.append("P")
    while names and names[-1] == "":
        names.pop()
    outs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    node = helper.make_node(op, names, outs, hidden_size=hidden, direction=direction,
                            **({"layout": layout} if layout else {}), **attrs)
    y_shape = [batch, seq, dirs, hidden] if layout else [seq, dirs, batch, hidden]
    outputs = [("Y", F, y_shape), ("Y_h", F, state)] + ([("Y_c", F, state)] if op == "LSTM" else [])
    return make_model([node], inputs, outputs, initializers=inits, opset=14 if layout else 13), inputs


def feeds_for(inputs, seq_lens=None):
    rng = np.random.default_rng(3)
    out = {}
    for name, _t, shape in inputs:
        if name == "lens":
            out[name] = np.asarray(seq_lens, "int32")
        else:
            out[name] = rng.standard_normal(shape).astype("float32")
    return out


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_directions(op, direction):
    model, inputs = rnn_model(op, direction=direction)
    check_against_ort(model, feeds_for(inputs), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_sequence_lens(op, direction):
    model, inputs = rnn_model(op, direction=direction, seq_lens=True)
    check_against_ort(model, feeds_for(inputs, [4, 2, 3]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_no_bias_no_initial_state(op):
    model, inputs = rnn_model(op, bias=False, init=False)
    check_against_ort(model, feeds_for(inputs), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_layout1_batch_major(op):
    """ONNX Runtime refuses layout=1, so the ONNX reference evaluator is the oracle."""
    from onnx.reference import ReferenceEvaluator

    model, inputs = rnn_model(op, layout=1)
    feeds = feeds_for(inputs)
    expected = ReferenceEvaluator(model).run(None, feeds)
    got = run_ember(model, feeds)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_gru_linear_before_reset_and_clip():
    model, inputs = rnn_model("GRU", linear_before_reset=1, clip=0.5)
    check_against_ort(model, feeds_for(inputs), rtol=1e-4, atol=1e-5)


def test_lstm_peephole_and_activations():
    model, inputs = rnn_model("LSTM", peephole=True, activations=["HardSigmoid", "Tanh", "Softsign"],
                              activation_alpha=[0.3], activation_beta=[0.4])
    check_against_ort(model, feeds_for(inputs), rtol=1e-4, atol=1e-5)


def test_rnn_relu_activation():
    model, inputs = rnn_model("RNN", activations=["Relu"])
    check_against_ort(model, feeds_for(inputs), rtol=1e-4, atol=1e-5)


def test_unknown_activation_is_reported():
    model, _ = rnn_model("RNN", activations=["Cube"])
    with pytest.raises(ONNXImportError, match="activation 'Cube' is not one of"):
        from_onnx(model)

"""ONNX DFT (forward, inverse, one-sided, inverse real, dft_length, run-time axis) and
STFT against numpy's FFT and ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx_helpers import check_against_ort, make_model, run_ember

from ember.relax.frontend.onnx import ONNXImportError, from_onnx

F, I64 = TensorProto.FLOAT, TensorProto.INT64
RNG = np.random.default_rng(0)


def _complex(y):
    return y[..., 0] + 1j * y[..., 1]


def _dft_model(shape, out_shape, opset=17, length=None, **attrs):
    inits, names = [], ["x"]
    if length is not None:
        inits.append(helper.make_tensor("n", I64, [], [length]))
        names.append("n")
    return make_model([helper.make_node("DFT", names, ["y"], **attrs)], [("x", F, shape)],
                      [("y", F, out_shape or [None] * len(shape))], initializers=inits, opset=opset)


@pytest.mark.parametrize("axis", [1, 2])
def test_dft_real_and_complex(axis):
    x = RNG.standard_normal((2, 6, 5, 1)).astype("float32")
    y = run_ember(_dft_model([2, 6, 5, 1], None, axis=axis), {"x": x})[0]
    np.testing.assert_allclose(_complex(y), np.fft.fft(x[..., 0], axis=axis), rtol=1e-4, atol=1e-4)
    xc = RNG.standard_normal((2, 6, 5, 2)).astype("float32")
    y = run_ember(_dft_model([2, 6, 5, 2], None, axis=axis, inverse=1), {"x": xc})[0]
    np.testing.assert_allclose(_complex(y), np.fft.ifft(_complex(xc), axis=axis), rtol=1e-4, atol=1e-5)


def test_rfft_irfft_and_dft_length():
    x = RNG.standard_normal((3, 8, 1)).astype("float32")
    y = run_ember(_dft_model([3, 8, 1], None, axis=1, onesided=1), {"x": x})[0]
    assert y.shape == (3, 5, 2)
    np.testing.assert_allclose(_complex(y), np.fft.rfft(x[..., 0], axis=1), rtol=1e-4, atol=1e-4)
    half = np.stack([np.fft.rfft(x[..., 0], axis=1).real, np.fft.rfft(x[..., 0], axis=1).imag], -1)
    back = run_ember(_dft_model([3, 5, 2], None, axis=1, onesided=1, inverse=1), {"x": half.astype("float32")})[0]
    np.testing.assert_allclose(back[..., 0], x[..., 0], rtol=1e-4, atol=1e-5)
    y = run_ember(_dft_model([3, 8, 1], None, axis=1, length=12), {"x": x})[0]
    np.testing.assert_allclose(_complex(y), np.fft.fft(x[..., 0], n=12, axis=1), rtol=1e-4, atol=1e-4)


def test_dft_opset20_against_ort():
    model = make_model([helper.make_node("DFT", ["x", "", "axis"], ["y"])], [("x", F, [2, 7, 7, 2])],
                       [("y", F, [2, 7, 7, 2])],
                       initializers=[helper.make_tensor("axis", I64, [], [2])], opset=20)
    check_against_ort(model, {"x": RNG.standard_normal((2, 7, 7, 2)).astype("float32")}, rtol=1e-4, atol=1e-4)


def test_dft_run_time_axis_same_shapes():
    model = make_model([helper.make_node("DFT", ["x", "", "axis"], ["y"])],
                       [("x", F, [1, 6, 6, 1]), ("axis", I64, [])], [("y", F, [1, 6, 6, 2])], opset=20)
    x = RNG.standard_normal((1, 6, 6, 1)).astype("float32")
    for axis in (1, -2):
        y = run_ember(model, {"x": x, "axis": np.array(axis, "int64")})[0]
        np.testing.assert_allclose(_complex(y), np.fft.fft(x[..., 0], axis=axis % 4), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("window", [False, True])
def test_stft_against_ort(window):
    inits = [helper.make_tensor("step", I64, [], [4])]
    names = ["sig", "step"]
    if window:
        w = np.hanning(10).astype("float32")
        inits.append(helper.make_tensor("win", F, [10], w))
        names += ["win"]
    else:
        inits.append(helper.make_tensor("len", I64, [], [10]))
        names += ["", "len"]
    model = make_model([helper.make_node("STFT", names, ["y"])], [("sig", F, [2, 40, 1])], [("y", F, [None] * 4)],
                       initializers=inits, opset=17)
    check_against_ort(model, {"sig": RNG.standard_normal((2, 40, 1)).astype("float32")}, rtol=1e-4, atol=1e-4)


def test_stft_run_time_step():
    w = np.hanning(8).astype("float32")
    model = make_model([helper.make_node("STFT", ["sig", "step", "win"], ["y"])],
                       [("sig", F, [1, 32, 1]), ("step", I64, [])], [("y", F, [None] * 4)],
                       initializers=[helper.make_tensor("win", F, [8], w)], opset=17)
    sig = RNG.standard_normal((1, 32, 1)).astype("float32")
    for step in (3, 8):
        check_against_ort(model, {"sig": sig, "step": np.array(step, "int64")}, rtol=1e-4, atol=1e-4)


def test_stft_run_time_frame_length_is_refused():
    model = make_model([helper.make_node("STFT", ["sig", "step", "", "len"], ["y"])],
                       [("sig", F, [1, 32, 1]), ("len", I64, [])], [("y", F, [None] * 4)],
                       initializers=[helper.make_tensor("step", I64, [], [4])], opset=17)
    with pytest.raises(ONNXImportError, match="frame_length must be known at import"):
        from_onnx(model)


@pytest.mark.parametrize("declared", [True, False])
@pytest.mark.parametrize("args", [(8, 16, 8192, 0.0, 4096.0), (5, 30, 16000, 100.0, 7000.0)])
def test_mel_weight_matrix_runtime_inputs(declared, args):
    from onnx import TensorProto as TP
    from onnx.reference import ReferenceEvaluator

    bins, dft, rate, low, high = args
    names = ["bins", "dft", "rate", "low", "high"]
    types = [TP.INT32, TP.INT32, TP.INT32, TP.FLOAT, TP.FLOAT]
    node = helper.make_node("MelWeightMatrix", names, ["y"])
    out = [("y", TP.FLOAT, [dft // 2 + 1, bins] if declared else None)]
    model = make_model(node, [(n, t, []) for n, t in zip(names, types, strict=True)], out, opset=17)
    feeds = {n: np.array(v, "int32" if t == TP.INT32 else "float32") for n, v, t in zip(names, args, types,
                                                                                      strict=True)}
    (got,) = run_ember(model, feeds)
    np.testing.assert_allclose(got, ReferenceEvaluator(model).run(None, feeds)[0], rtol=1e-6, atol=1e-7)

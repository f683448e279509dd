"""ONNX LRN imports as one kernel (``topi.nn.lrn_channels``, PrimFunc marked ``ember.lrn``)
and, after a convolution on CPU, runs channel-blocked (``lrn_nchwc``); both against ONNX
Runtime / a float64 numpy LRN, odd and even windows."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import ember as tvm
from ember import relax
from ember.relax.frontend.onnx import from_onnx

RNG = np.random.default_rng(11)


def lrn_ref(x, size, alpha, beta, bias):
    c = x.shape[1]
    before, after = (size - 1) // 2, size // 2
    sq = np.pad(np.asarray(x, "float64") ** 2, [(0, 0), (before, after)] + [(0, 0)] * (x.ndim - 2))
    return x / (bias + alpha / size * sum(sq[:, k:k + c] for k in range(size))) ** beta


def _model(nodes, x_shape, inits=()):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def _run(model, x):
    vm = relax.VirtualMachine(relax.build(from_onnx(model), target="llvm"), tvm.cpu())
    return vm["main"](tvm.nd.array(x)).numpy()


@pytest.mark.parametrize("size,beta", [(5, 0.75), (4, 0.6), (2, 1.0)])
def test_lrn_imports_as_one_marked_kernel(size, beta):
    node = helper.make_node("LRN", ["x"], ["y"], size=size, alpha=1e-2, beta=beta, bias=1.5)
    model = _model([node], (2, 6, 4, 5))
    mod = from_onnx(model)
    prims = [f for f in mod.functions.values() if isinstance(f, tvm.tir.PrimFunc)]
    assert len(prims) == 1
    assert [float(v) for v in prims[0].attrs["ember.lrn"]] == pytest.approx([size, 1e-2, beta, 1.5])
    x = (RNG.standard_normal((2, 6, 4, 5)) * 5).astype("float32")
    np.testing.assert_allclose(_run(model, x), lrn_ref(x, size, 1e-2, beta, 1.5), rtol=2e-6, atol=1e-6)


def test_lrn_after_a_conv_runs_blocked_and_matches_ort():
    ort = pytest.importorskip("onnxruntime")
    w1 = numpy_helper.from_array(RNG.standard_normal((32, 8, 3, 3)).astype("float32"), "w1")
    w2 = numpy_helper.from_array(RNG.standard_normal((16, 32, 1, 1)).astype("float32"), "w2")
    nodes = [helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["a"], ["r"]),
             helper.make_node("LRN", ["r"], ["l"], size=5, alpha=1e-3, beta=0.75, bias=1.0),
             helper.make_node("Conv", ["l", "w2"], ["y"])]
    model = _model(nodes, (1, 8, 12, 12), [w1, w2])
    with tvm.target.Target("llvm"):
        lowered = relax.get_default_pipeline(tvm.target.Target("llvm"))(from_onnx(model))
    assert any(gv.name_hint.startswith("lrn_nchwc") for gv in lowered.functions)
    x = RNG.standard_normal((1, 8, 12, 12)).astype("float32")
    ref = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    np.testing.assert_allclose(_run(model, x), ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_lrn_needs_a_static_channel_count():
    node = helper.make_node("LRN", ["x"], ["y"], size=3)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "c", 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    with pytest.raises(Exception, match="static channel count"):
        from_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))

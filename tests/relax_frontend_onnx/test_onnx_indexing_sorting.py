"""ONNX indexing (GatherND, ScatterND, ScatterElements, OneHot) and sorting/search (TopK,
NonZero, Unique) converters against ONNX Runtime, including the data-dependent-shape
paths (packed functions + match_cast) feeding later nodes."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from ember.relax.frontend.onnx import from_onnx
from ember.relax.frontend.onnx.common import ONNXImportError
from onnx_helpers import check_against_ort, make_model

F, I64 = TensorProto.FLOAT, TensorProto.INT64
RNG = np.random.default_rng(0)


def _init(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


def test_gather_nd_batch_dims_and_negative_indices():
    node = helper.make_node("GatherND", ["x", "i"], ["y"], batch_dims=1)
    model = make_model(node, [("x", F, [2, 3, 4]), ("i", I64, [2, 2, 1])], [("y", F, [2, 2, 4])], opset=13)
    check_against_ort(model, {"x": RNG.standard_normal((2, 3, 4)).astype("float32"),
                              "i": np.array([[[0], [-1]], [[2], [1]]], "int64")})


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_nd(reduction):
    node = helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction=reduction)
    model = make_model(node, [("x", F, [4, 3]), ("i", I64, [3, 1]), ("u", F, [3, 3])], [("y", F, [4, 3])],
                       opset=18)
    idx = np.array([[0], [2], [0]] if reduction != "none" else [[0], [2], [-1]], "int64")
    check_against_ort(model, {"x": RNG.standard_normal((4, 3)).astype("float32"), "i": idx,
                              "u": RNG.standard_normal((3, 3)).astype("float32")})


@pytest.mark.parametrize("reduction", ["none", "add", "max"])
def test_scatter_elements(reduction):
    node = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1, reduction=reduction)
    model = make_model(node, [("x", F, [3, 4]), ("i", I64, [3, 2]), ("u", F, [3, 2])], [("y", F, [3, 4])],
                       opset=18)
    check_against_ort(model, {"x": RNG.standard_normal((3, 4)).astype("float32"),
                              "i": np.array([[0, 3], [1, -1], [2, 2]] if reduction != "none" else
                                            [[0, 3], [1, -1], [2, 0]], "int64"),
                              "u": RNG.standard_normal((3, 2)).astype("float32")})


@pytest.mark.parametrize("depth_known", [True, False])
def test_one_hot(depth_known):
    node = helper.make_node("OneHot", ["i", "d", "v"], ["y"], axis=1)
    inputs = [("i", I64, [2, 3])]
    inits = [_init("v", np.array([-1.0, 5.0], "float32"))]
    feeds = {"i": np.array([[0, -1, 4], [7, 2, 1]], "int64")}
    if depth_known:
        inits.append(_init("d", np.int64(5)))
    else:
        inputs.append(("d", I64, []))
        feeds["d"] = np.array(5, "int64")
    model = make_model(node, inputs, [("y", F, [2, 5, 3])], inits, opset=13)
    check_against_ort(model, feeds)


@pytest.mark.parametrize("k_known", [True, False])
@pytest.mark.parametrize("largest", [1, 0])
def test_topk(k_known, largest):
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=largest)
    inputs = [("x", F, [3, 6])]
    feeds = {"x": np.array([[1, 3, 3, 2, 0, 3], [5, 4, 3, 2, 1, 0], [0, 0, 1, 1, 2, 2]], "float32")}
    inits = []
    if k_known:
        inits.append(_init("k", np.array([3], "int64")))
    else:
        inputs.append(("k", I64, [1]))
        feeds["k"] = np.array([3], "int64")
    model = make_model(node, inputs, [("v", F, [3, 3]), ("i", I64, [3, 3])], inits, opset=13)
    check_against_ort(model, feeds)


def test_nonzero_feeds_a_dynamic_shape_consumer():
    nodes = [helper.make_node("NonZero", ["x"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["t"]),
             helper.make_node("GatherND", ["x", "t"], ["y"])]
    model = make_model(nodes, [("x", F, [3, 4])], [("y", F, ["n"])], opset=13)
    x = np.where(RNG.random((3, 4)) > 0.5, RNG.standard_normal((3, 4)), 0).astype("float32")
    check_against_ort(model, {"x": x})


@pytest.mark.parametrize("axis", [None, 0])
@pytest.mark.parametrize("sorted_", [1, 0])
def test_unique(axis, sorted_):
    kwargs = {"sorted": sorted_} if axis is None else {"sorted": sorted_, "axis": axis}
    node = helper.make_node("Unique", ["x"], ["y", "idx", "inv", "cnt"], **kwargs)
    out_y = ("y", F, ["n"]) if axis is None else ("y", F, ["n", 3])
    model = make_model(node, [("x", F, [4, 3])],
                       [out_y, ("idx", I64, ["n"]), ("inv", I64, ["m"]), ("cnt", I64, ["n"])], opset=13)
    x = np.array([[2, 1, 1], [3, 4, 3], [2, 1, 1], [0, 0, 0]], "float32")
    check_against_ort(model, {"x": x})


def test_scatter_nd_unknown_reduction_is_named():
    node = helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction="mean")
    model = make_model(node, [("x", F, [4]), ("i", I64, [1, 1]), ("u", F, [1])], [("y", F, [4])], opset=18)
    with pytest.raises(ONNXImportError, match="reduction must be one of"):
        from_onnx(model)


@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_tensor_scatter_matches_numpy(mode):
    # ONNX Runtime has no TensorScatter kernel yet: numpy is the oracle
    from onnx_helpers import run_ember

    node = helper.make_node("TensorScatter", ["past", "upd", "w"], ["y"], mode=mode)
    model = make_model(node, [("past", F, [2, 3, 6, 4]), ("upd", F, [2, 3, 2, 4]), ("w", I64, [2])],
                       [("y", F, [2, 3, 6, 4])], opset=24)
    model.ir_version = 10
    past = RNG.standard_normal((2, 3, 6, 4)).astype("float32")
    upd = RNG.standard_normal((2, 3, 2, 4)).astype("float32")
    w = np.array([1, 5] if mode == "circular" else [1, 4], "int64")
    (got,) = run_ember(model, {"past": past, "upd": upd, "w": w})
    want = past.copy()
    for b in range(2):
        for s in range(2):
            pos = w[b] + s
            if mode == "circular":
                pos %= 6
            want[b, :, pos] = upd[b, :, s]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("largest", [1, 0])
def test_topk_small_k_long_axis_uses_selection(largest):
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=0, largest=largest)
    model = make_model(node, [("x", F, [40, 3])], [("v", F, [3, 3]), ("i", I64, [3, 3])],
                       [_init("k", np.array([3], "int64"))], opset=13)
    mod = from_onnx(model)
    assert "topk_select" in [gv.name_hint for gv in mod.functions]
    check_against_ort(model, {"x": RNG.integers(0, 6, (40, 3)).astype("float32")})  # many ties

"""ONNX Einsum, NonMaxSuppression and RoiAlign against ONNX Runtime."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from ember.relax.frontend.onnx.einsum import expand_ellipsis
from onnx_helpers import check_against_ort, make_model

F, I64 = TensorProto.FLOAT, TensorProto.INT64
RNG = np.random.default_rng(0)


@pytest.mark.parametrize("eq,shapes,out", [
    ("ij,jk->ik", [(3, 4), (4, 5)], (3, 5)),
    ("...ij,...jk", [(2, 3, 4), (2, 4, 5)], (2, 3, 5)),
    ("bij->bji", [(2, 3, 4)], (2, 4, 3)),
    ("...ii->...i", [(2, 3, 3)], (2, 3)),
    ("i,i", [(5,), (5,)], ()),
])
def test_einsum(eq, shapes, out):
    names = [f"x{i}" for i in range(len(shapes))]
    node = helper.make_node("Einsum", names, ["y"], equation=eq)
    model = make_model(node, [(n, F, list(s)) for n, s in zip(names, shapes)], [("y", F, list(out))], opset=13)
    check_against_ort(model, {n: RNG.standard_normal(s).astype("float32") for n, s in zip(names, shapes)},
                      rtol=1e-4)


def test_expand_ellipsis_spells_out_numpy_implicit_output():
    assert expand_ellipsis("...ij,...jk", [3, 3]) == "aij,ajk->aik"
    assert expand_ellipsis("ij,jk", [2, 2]) == "ij,jk->ik"
    assert expand_ellipsis("i...->...", [3]) == "iab->ab"


@pytest.mark.parametrize("center", [0, 1])
def test_non_max_suppression(center):
    boxes = RNG.uniform(0, 10, (2, 6, 4)).astype("float32")
    if not center:
        boxes[..., 2:] = boxes[..., :2] + RNG.uniform(1, 5, (2, 6, 2))
    scores = RNG.uniform(0, 1, (2, 3, 6)).astype("float32")
    node = helper.make_node("NonMaxSuppression", ["b", "s", "m", "iou", "st"], ["y"], center_point_box=center)
    inits = [numpy_helper.from_array(np.array([3], "int64"), "m"), numpy_helper.from_array(np.array([0.3], "float32"), "iou"),
             numpy_helper.from_array(np.array([0.2], "float32"), "st")]
    model = make_model(node, [("b", F, [2, 6, 4]), ("s", F, [2, 3, 6])], [("y", I64, ["n", 3])], inits, opset=11)
    check_against_ort(model, {"b": boxes, "s": scores})


@pytest.mark.parametrize("mode,ctm,ratio", [("avg", "half_pixel", 2), ("max", "output_half_pixel", 2),
                                            ("avg", "half_pixel", 0)])
def test_roi_align(mode, ctm, ratio):
    x = RNG.standard_normal((2, 3, 8, 8)).astype("float32")
    rois = np.array([[0, 0, 5, 5], [1.5, 2.2, 7.9, 6.1], [3, 3, 4, 4]], "float32")
    node = helper.make_node("RoiAlign", ["x", "r", "b"], ["y"], mode=mode, coordinate_transformation_mode=ctm,
                            output_height=3, output_width=2, sampling_ratio=ratio, spatial_scale=1.0)
    model = make_model(node, [("x", F, [2, 3, 8, 8]), ("r", F, [3, 4]), ("b", I64, [3])], [("y", F, [3, 3, 3, 2])],
                       opset=16)
    check_against_ort(model, {"x": x, "r": rois, "b": np.array([0, 1, 0], "int64")}, rtol=1e-4, atol=1e-5)

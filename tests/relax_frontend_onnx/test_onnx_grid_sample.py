"""ONNX GridSample through from_onnx + relax.build against ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx_helpers import check_against_ort, make_model

from ember.relax.frontend.onnx import ONNXImportError, from_onnx

F = TensorProto.FLOAT


@pytest.mark.parametrize("mode,padding,align", [("linear", "zeros", 0), ("nearest", "border", 1),
                                                ("cubic", "reflection", 0)])
def test_grid_sample_against_ort(mode, padding, align):
    node = helper.make_node("GridSample", ["x", "g"], ["y"], mode=mode, padding_mode=padding, align_corners=align)
    model = make_model([node], [("x", F, [1, 2, 4, 5]), ("g", F, [1, 3, 6, 2])], [("y", F, [1, 2, 3, 6])], opset=20)
    rng = np.random.default_rng(0)
    check_against_ort(model, {"x": rng.standard_normal((1, 2, 4, 5)).astype("float32"),
                              "g": rng.uniform(-1.2, 1.2, (1, 3, 6, 2)).astype("float32")}, rtol=1e-4, atol=1e-5)


def test_grid_sample_unknown_mode_is_reported():
    node = helper.make_node("GridSample", ["x", "g"], ["y"], mode="area")
    model = make_model([node], [("x", F, [1, 1, 4, 4]), ("g", F, [1, 2, 2, 2])], [("y", F, [1, 1, 2, 2])], opset=20)
    with pytest.raises(ONNXImportError):
        from_onnx(model)

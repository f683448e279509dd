"""AffineGrid: constant size, and run-time size with a declared output shape."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from onnx_helpers import make_model, run_ember


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("size", [[2, 3, 4, 5], [1, 1, 2, 3, 4]])
@pytest.mark.parametrize("runtime_size", [False, True])
def test_affine_grid_matches_reference(align, size, runtime_size):
    rank = len(size) - 2
    theta = np.random.RandomState(0).standard_normal((size[0], rank, rank + 1)).astype("float32")
    node = helper.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=align)
    out = [("grid", TP.FLOAT, [size[0], *size[2:], rank])]
    size_arr = np.array(size, "int64")
    if runtime_size:
        model = make_model(node, [("theta", TP.FLOAT, list(theta.shape)), ("size", TP.INT64, [len(size)])], out,
                           opset=20)
        feeds = {"theta": theta, "size": size_arr}
    else:
        model = make_model(node, [("theta", TP.FLOAT, list(theta.shape))], out,
                           initializers=[numpy_helper.from_array(size_arr, "size")], opset=20)
        feeds = {"theta": theta}
    (got,) = run_ember(model, feeds)
    (expected,) = ReferenceEvaluator(model).run(None, feeds)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)

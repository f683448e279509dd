"""ImageDecoder and Col2Im (packed functions with data-dependent output shapes)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from onnx import TensorProto as TP
from onnx import helper
from onnx.reference import ReferenceEvaluator

from onnx_helpers import make_model, run_ember


@pytest.mark.parametrize("fmt", ["RGB", "BGR", "Grayscale"])
@pytest.mark.parametrize("declared", [True, False])
def test_image_decoder_png(fmt, declared):
    PIL = pytest.importorskip("PIL.Image")
    pixels = np.random.RandomState(0).randint(0, 255, (6, 5, 3)).astype("uint8")
    buf = io.BytesIO()
    PIL.fromarray(pixels).save(buf, format="PNG")
    data = np.frombuffer(buf.getvalue(), "uint8")
    channels = 1 if fmt == "Grayscale" else 3
    node = helper.make_node("ImageDecoder", ["data"], ["image"], pixel_format=fmt)
    out = [("image", TP.UINT8, [6, 5, channels] if declared else None)]
    model = make_model(node, [("data", TP.UINT8, [len(data)])], out, opset=20)
    (got,) = run_ember(model, {"data": data})
    (expected,) = ReferenceEvaluator(model).run(None, {"data": data})
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("attrs", [{}, {"pads": [1, 0, 1, 2]}, {"strides": [2, 1]}, {"dilations": [2, 1]}])
def test_col2im_matches_reference(attrs):
    image, block = np.array([5, 6], "int64"), np.array([2, 3], "int64")
    pads = attrs.get("pads", [0, 0, 0, 0])
    strides, dil = attrs.get("strides", [1, 1]), attrs.get("dilations", [1, 1])
    counts = [(image[i] + pads[i] + pads[i + 2] - dil[i] * (block[i] - 1) - 1) // strides[i] + 1 for i in range(2)]
    x = np.random.RandomState(1).standard_normal((1, 2 * 6, int(np.prod(counts)))).astype("float32")
    node = helper.make_node("Col2Im", ["x", "image", "block"], ["y"], **attrs)
    model = make_model(node, [("x", TP.FLOAT, list(x.shape)), ("image", TP.INT64, [2]), ("block", TP.INT64, [2])],
                       [("y", TP.FLOAT, None)], opset=18)
    feeds = {"x": x, "image": image, "block": block}
    (got,) = run_ember(model, feeds)
    (expected,) = ReferenceEvaluator(model).run(None, feeds)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)

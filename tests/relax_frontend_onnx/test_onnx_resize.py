"""ONNX Resize/Upsample against ONNX Runtime: import-time resampling matrices (constant
scales/sizes) and the packed run-time path (scales fed as inputs)."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from ember.relax.frontend.onnx import from_onnx
from ember.relax.frontend.onnx.common import ONNXImportError
from onnx_helpers import check_against_ort, make_model

F = TensorProto.FLOAT
RNG = np.random.default_rng(0)
X = RNG.standard_normal((1, 2, 4, 5)).astype("float32")


def _resize_model(out_shape, scales=None, sizes=None, roi=None, as_inputs=False, **attrs):
    names = ["x", "roi" if roi is not None else "", "scales" if scales is not None else "",
             "sizes" if sizes is not None else ""]
    while names[-1] == "":
        names.pop()
    node = helper.make_node("Resize", names, ["y"], **attrs)
    values = [("roi", roi, F), ("scales", scales, F), ("sizes", sizes, TensorProto.INT64)]
    inputs = [("x", F, list(X.shape))]
    inits, feeds = [], {"x": X}
    for name, value, etype in values:
        if value is None:
            continue
        arr = np.asarray(value, "float32" if etype == F else "int64")
        if as_inputs:
            inputs.append((name, etype, list(arr.shape)))
            feeds[name] = arr
        else:
            inits.append(numpy_helper.from_array(arr, name))
    return make_model(node, inputs, [("y", F, out_shape)], inits, opset=19), feeds


CASES = [
    ("nearest-up-asymmetric-floor", dict(scales=[1, 1, 2, 1.5], mode="nearest",
                                         coordinate_transformation_mode="asymmetric", nearest_mode="floor")),
    ("nearest-sizes-half-pixel", dict(sizes=[1, 2, 7, 3], mode="nearest")),
    ("nearest-round-prefer-ceil", dict(scales=[1, 1, 0.6, 1.7], mode="nearest", nearest_mode="round_prefer_ceil")),
    ("linear-half-pixel", dict(scales=[1, 1, 2, 2], mode="linear")),
    ("linear-align-corners-down", dict(sizes=[1, 2, 3, 3], mode="linear", coordinate_transformation_mode="align_corners")),
    ("linear-pytorch-half-pixel", dict(sizes=[1, 2, 1, 8], mode="linear",
                                       coordinate_transformation_mode="pytorch_half_pixel")),
    ("linear-antialias-down", dict(scales=[1, 1, 0.5, 0.6], mode="linear", antialias=1)),
    ("cubic-default", dict(scales=[1, 1, 1.5, 2], mode="cubic")),
    ("cubic-exclude-outside", dict(scales=[1, 1, 0.75, 1.3], mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1)),
    ("cubic-antialias", dict(sizes=[1, 2, 3, 3], mode="cubic", antialias=1)),
    ("crop-and-resize", dict(sizes=[1, 2, 3, 3], roi=[0, 0, 0.2, 0.3, 1, 1, 0.9, 1.2], mode="linear",
                             coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=7.0)),
    ("axes-not-larger", dict(sizes=[6, 6], axes=[2, 3], mode="nearest", keep_aspect_ratio_policy="not_larger")),
]


def _out_shape(kwargs):
    if kwargs.get("axes"):
        return None
    if "sizes" in kwargs:
        return kwargs["sizes"]
    return [int(d * s) for d, s in zip(X.shape, kwargs["scales"])]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[c[0] for c in CASES])
def test_resize_constant_scales(name, kwargs):
    kwargs = dict(kwargs)
    shape = _out_shape(kwargs) or [1, 2, 5, 6]
    model, feeds = _resize_model(shape, **kwargs)
    check_against_ort(model, feeds, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,kwargs", CASES[::3], ids=[c[0] for c in CASES[::3]])
def test_resize_runtime_scales(name, kwargs):
    kwargs = dict(kwargs)
    shape = _out_shape(kwargs) or [1, 2, 5, 6]
    model, feeds = _resize_model(shape, as_inputs=True, **kwargs)
    check_against_ort(model, feeds, rtol=1e-4, atol=1e-5)


def test_resize_integer_input_linear_rounds():
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear")
    model = make_model(node, [("x", TensorProto.UINT8, [1, 1, 2, 3])], [("y", TensorProto.UINT8, [1, 1, 4, 6])],
                       [numpy_helper.from_array(np.array([1, 1, 2, 2], "float32"), "s")], opset=19)
    check_against_ort(model, {"x": np.array([[[[0, 100, 255], [7, 50, 3]]]], "uint8")}, atol=1)


def test_upsample_nearest():
    node = helper.make_node("Upsample", ["x", "s"], ["y"], mode="nearest")
    model = make_model(node, [("x", F, [1, 2, 4, 5])], [("y", F, [1, 2, 8, 15])],
                       [numpy_helper.from_array(np.array([1, 1, 2, 3], "float32"), "s")], opset=9)
    check_against_ort(model, {"x": X})


def test_resize_bad_mode_is_named():
    model, _ = _resize_model([1, 2, 8, 10], scales=[1, 1, 2, 2], mode="bilinear")
    with pytest.raises(ONNXImportError, match="mode must be one of"):
        from_onnx(model)

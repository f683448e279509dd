"""Low-bit ONNX element types (float8, float4, int4/uint4, int2/uint2) held as storage
dtypes: Cast/CastLike to and from them, checked against ONNX's reference evaluator."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper
from onnx.reference import ReferenceEvaluator

from ember.relax.frontend.onnx.lowbit import from_storage, to_storage

from onnx_helpers import make_model, run_ember

_VALUES = np.array([0.0, -0.0, 0.3, -1.7, 2.5, 3.5, 7.9, -100.0, 1e4, 5e5, -5e5, 1e-5, np.inf, -np.inf, np.nan,
                    448.0, 460.0, 470.0, 57344.0, 61440.0, 0.001953125, 0.0029296875], np.float32)


def _compare_values(got, expected):
    g, e = got.astype(np.float64), expected.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(e))
    ok = ~np.isnan(e)
    np.testing.assert_array_equal(g[ok], e[ok])
    np.testing.assert_array_equal(np.signbit(g[ok]), np.signbit(e[ok]))


@pytest.mark.parametrize("to", [TP.FLOAT8E4M3FN, TP.FLOAT8E4M3FNUZ, TP.FLOAT8E5M2, TP.FLOAT8E5M2FNUZ])
@pytest.mark.parametrize("saturate", [0, 1])
def test_cast_float_to_float8_and_back(to, saturate):
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=to, saturate=saturate),
             helper.make_node("Cast", ["y"], ["z"], to=TP.FLOAT)]
    model = make_model(nodes, [("x", TP.FLOAT, [len(_VALUES)])],
                       [("y", to, [len(_VALUES)]), ("z", TP.FLOAT, [len(_VALUES)])], opset=21)
    y, z = run_ember(model, {"x": _VALUES})
    assert y.dtype == np.uint8  # the storage dtype
    ref_y, ref_z = ReferenceEvaluator(model).run(None, {"x": _VALUES})
    _compare_values(from_storage(y, to), ref_y)
    _compare_values(z, ref_z)


@pytest.mark.parametrize("to", [TP.INT4, TP.UINT4, TP.INT2, TP.UINT2, TP.FLOAT4E2M1])
def test_cast_float16_to_small_types(to):
    x = np.array([-9.7, -8.0, -2.5, -0.5, 0.0, 0.5, 1.5, 2.5, 6.5, 7.0, 15.5, 100.0], np.float16)
    node = helper.make_node("Cast", ["x"], ["y"], to=to)
    model = make_model(node, [("x", TP.FLOAT16, [len(x)])], [("y", to, [len(x)])], opset=21)
    (y,) = run_ember(model, {"x": x})
    (ref,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_array_equal(from_storage(y, to).astype(np.float32), ref.astype(np.float32))


def test_cast_int4_input_and_castlike():
    x = np.array([-8, -3, 0, 5, 7], ml_dtypes.int4)
    like = helper.make_tensor("like", TP.FLOAT8E5M2, [1], [0.0])
    nodes = [helper.make_node("Cast", ["x"], ["f"], to=TP.FLOAT),
             helper.make_node("CastLike", ["f", "like"], ["y"])]
    model = make_model(nodes, [("x", TP.INT4, [5])], [("f", TP.FLOAT, [5]), ("y", TP.FLOAT8E5M2, [5])],
                       initializers=[like], opset=21)
    f, y = run_ember(model, {"x": to_storage(x)})
    np.testing.assert_array_equal(f, x.astype(np.float32))
    np.testing.assert_array_equal(from_storage(y, TP.FLOAT8E5M2).astype(np.float32), x.astype(np.float32))


@pytest.mark.parametrize("mode", ["up", "down", "nearest"])
def test_cast_to_e8m0_round_modes(mode):
    x = np.array([1.0, 1.5, 3.0, 0.75, 1e-3, 1e30, np.inf, np.nan, 3.4e38], np.float32)
    node = helper.make_node("Cast", ["x"], ["y"], to=TP.FLOAT8E8M0, round_mode=mode)
    model = make_model(node, [("x", TP.FLOAT, [len(x)])], [("y", TP.FLOAT8E8M0, [len(x)])], opset=24)
    (y,) = run_ember(model, {"x": x})
    (ref,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_array_equal(y, to_storage(ref))


def test_storage_round_trip():
    for dtype in (ml_dtypes.float8_e4m3fn, ml_dtypes.float4_e2m1fn, ml_dtypes.int4, ml_dtypes.uint2):
        values = np.array([0, 1, -1, 2], np.float32).astype(dtype) if "uint" not in np.dtype(dtype).name \
            else np.array([0, 1, 2, 3]).astype(dtype)
        elem = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        back = from_storage(to_storage(values), elem)
        assert back.dtype == values.dtype
        np.testing.assert_array_equal(back.astype(np.float32), values.astype(np.float32))


@pytest.mark.parametrize("elem", [TP.INT4, TP.UINT4, TP.FLOAT8E4M3FN, TP.FLOAT8E5M2, TP.FLOAT4E2M1])
def test_quantize_dequantize_lowbit(elem):
    x = np.array([[-40.0, -3.3, 0.0, 1.26, 2.5, 9.9, 60.0]], np.float32)
    zp_value = 0 if elem not in (TP.UINT4,) else 3
    zp = helper.make_tensor("zp", elem, [], [zp_value])
    scale = helper.make_tensor("scale", TP.FLOAT, [], [0.5])
    nodes = [helper.make_node("QuantizeLinear", ["x", "scale", "zp"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "scale", "zp"], ["y"])]
    model = make_model(nodes, [("x", TP.FLOAT, [1, 7])], [("q", elem, [1, 7]), ("y", TP.FLOAT, [1, 7])],
                       initializers=[zp, scale], opset=21)
    q, y = run_ember(model, {"x": x})
    ref_q, ref_y = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_array_equal(from_storage(q, elem).astype(np.float32), ref_q.astype(np.float32))
    np.testing.assert_allclose(y, ref_y)

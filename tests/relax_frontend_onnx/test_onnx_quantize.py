"""ONNX quantisation converters against ONNX Runtime."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from ember.relax.frontend.onnx import ONNXImportError, from_onnx
from ember.relax.frontend.onnx.common import OpNotImplemented
from onnx_helpers import check_against_ort, make_model, run_ember

F, U8, I8 = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8
RNG = np.random.default_rng(0)


def _init(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


@pytest.mark.parametrize("zp_type,zp", [(U8, np.uint8(128)), (I8, np.int8(-3))])
def test_quantize_per_tensor(zp_type, zp):
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])
    model = make_model(node, [("x", F, [2, 3, 4])], [("y", zp_type, [2, 3, 4])],
                       [_init("s", np.float32(0.05)), _init("z", zp)], opset=13)
    check_against_ort(model, {"x": (RNG.standard_normal((2, 3, 4)) * 4).astype("float32")}, rtol=0, atol=0)


def test_quantize_per_axis_and_dequantize_round_trip():
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1)]
    model = make_model(nodes, [("x", F, [2, 3, 4])], [("y", F, [2, 3, 4])],
                       [_init("s", np.array([0.1, 0.02, 0.5], "float32")), _init("z", np.array([0, 10, 250], "uint8"))],
                       opset=13)
    check_against_ort(model, {"x": (RNG.standard_normal((2, 3, 4)) * 3).astype("float32")})


def test_quantize_blocked():
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=1, block_size=2)
    model = make_model(node, [("x", F, [3, 5])], [("y", I8, [3, 5])],
                       [_init("s", RNG.uniform(0.05, 0.5, (3, 3)).astype("float32")),
                        _init("z", np.zeros((3, 3), "int8"))], opset=21)
    check_against_ort(model, {"x": (RNG.standard_normal((3, 5)) * 4).astype("float32")}, rtol=0, atol=0)


def test_dynamic_quantize_linear():
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    model = make_model(node, [("x", F, [4, 6])], [("y", U8, [4, 6]), ("s", F, []), ("z", U8, [])], opset=13)
    check_against_ort(model, {"x": RNG.standard_normal((4, 6)).astype("float32")}, atol=0)


def test_matmul_integer_with_zero_points():
    node = helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])
    model = make_model(node, [("a", U8, [3, 4]), ("b", U8, [4, 5])], [("y", TensorProto.INT32, [3, 5])],
                       [_init("az", np.uint8(7)), _init("bz", np.array([4, 3, 2, 1, 0], "uint8"))], opset=13)
    feeds = {"a": RNG.integers(0, 255, (3, 4)).astype("uint8"), "b": RNG.integers(0, 255, (4, 5)).astype("uint8")}
    check_against_ort(model, feeds, rtol=0, atol=0)


def test_matmul_integer_per_row_zero_point_matches_numpy():
    # ONNX allows a per-row zero point for A; ONNX Runtime does not, so numpy is the oracle
    node = helper.make_node("MatMulInteger", ["a", "b", "az"], ["y"])
    az = np.array([1, 2, 3], "uint8")
    model = make_model(node, [("a", U8, [3, 4]), ("b", U8, [4, 5])], [("y", TensorProto.INT32, [3, 5])],
                       [_init("az", az)], opset=13)
    a, b = RNG.integers(0, 255, (3, 4)).astype("uint8"), RNG.integers(0, 255, (4, 5)).astype("uint8")
    (got,) = run_ember(model, {"a": a, "b": b})
    np.testing.assert_array_equal(got, (a.astype("int32") - az[:, None]) @ b.astype("int32"))


def test_qlinear_matmul():
    node = helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])
    inits = [_init("as", np.float32(0.02)), _init("az", np.uint8(100)), _init("bs", np.float32(0.03)),
             _init("bz", np.uint8(120)), _init("ys", np.float32(0.2)), _init("yz", np.uint8(128))]
    model = make_model(node, [("a", U8, [2, 3, 4]), ("b", U8, [4, 5])], [("y", U8, [2, 3, 5])], inits, opset=13)
    feeds = {"a": RNG.integers(0, 255, (2, 3, 4)).astype("uint8"), "b": RNG.integers(0, 255, (4, 5)).astype("uint8")}
    check_against_ort(model, feeds, rtol=0, atol=1)


def test_qlinear_conv_per_channel():
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                            pads=[1, 1, 1, 1])
    inits = [_init("xs", np.float32(0.05)), _init("xz", np.uint8(10)),
             _init("w", RNG.integers(-20, 20, (3, 2, 3, 3)).astype("int8")),
             _init("ws", np.array([0.01, 0.02, 0.03], "float32")), _init("wz", np.zeros(3, "int8")),
             _init("ys", np.float32(0.1)), _init("yz", np.uint8(5)), _init("b", np.array([5, -3, 100], "int32"))]
    model = make_model(node, [("x", U8, [1, 2, 5, 5])], [("y", U8, [1, 3, 5, 5])], inits, opset=13)
    check_against_ort(model, {"x": RNG.integers(0, 255, (1, 2, 5, 5)).astype("uint8")}, rtol=0, atol=1)


def test_conv_integer():
    node = helper.make_node("ConvInteger", ["x", "w", "xz"], ["y"])
    model = make_model(node, [("x", U8, [1, 1, 4, 4]), ("w", U8, [2, 1, 2, 2])],
                       [("y", TensorProto.INT32, [1, 2, 3, 3])], [_init("xz", np.uint8(3))], opset=13)
    feeds = {"x": RNG.integers(0, 20, (1, 1, 4, 4)).astype("uint8"), "w": RNG.integers(0, 5, (2, 1, 2, 2)).astype("uint8")}
    check_against_ort(model, feeds, rtol=0, atol=0)


def test_float6_is_refused_by_name():
    # float8/float4/int4/int2 are served as storage types (test_onnx_lowbit.py); float6 is not
    node = helper.make_node("QuantizeLinear", ["x", "s"], ["y"], output_dtype=TensorProto.FLOAT6E2M3)
    model = make_model(node, [("x", F, [4])], [("y", TensorProto.FLOAT6E2M3, [4])], [_init("s", np.float32(1))],
                       opset=25)
    model.ir_version = 13
    with pytest.raises((OpNotImplemented, ONNXImportError), match="float6e2m3|FLOAT6E2M3"):
        from_onnx(model)

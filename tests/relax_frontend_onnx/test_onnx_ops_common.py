"""The common ONNX op families (elementwise, activations, reductions, tensor/shape ops,
conv/pool, normalisations, MatMul/Gemm) node by node against ONNX Runtime, including
shape arguments fed at run time and the dtypes the importer maps."""

import numpy as np
import pytest
from onnx import TensorProto as TP
from onnx import helper
from onnx_helpers import check_against_ort, make_model, run_ember

from ember.relax.frontend.onnx import ONNXImportError, from_onnx

RNG = np.random.default_rng(0)
F = TP.FLOAT


def _x(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def _unary(op, shape=(2, 3, 4), opset=17, rtol=1e-5, atol=1e-5, x=None, **attrs):
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    x = _x(*shape) if x is None else x
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    model = make_model(node, [("x", elem, list(x.shape))], [("y", elem, None)], opset=opset)
    check_against_ort(model, {"x": x}, rtol=rtol, atol=atol)


UNARY_CASES = [
    ("Abs", {}), ("Neg", {}), ("Exp", {}), ("Tanh", {}), ("Sigmoid", {}), ("Erf", {}),
    ("Floor", {}), ("Ceil", {}), ("Sign", {}), ("Round", {}), ("Reciprocal", {}), ("Relu", {}),
    ("LeakyRelu", {"alpha": 0.2}), ("Elu", {}), ("Selu", {}), ("Celu", {}), ("HardSigmoid", {}),
    ("HardSwish", {}), ("Softplus", {}), ("Softsign", {}), ("Mish", {}), ("ThresholdedRelu", {}),
    ("Shrink", {"lambd": 0.3, "bias": 0.1}), ("Softmax", {"axis": 1}), ("LogSoftmax", {}),
    ("Hardmax", {"axis": 1}), ("Gelu", {"approximate": "tanh"}),
]


@pytest.mark.parametrize("op,attrs", UNARY_CASES, ids=[c[0] for c in UNARY_CASES])
def test_unary_and_activations(op, attrs):
    opset = 20 if op == "Gelu" else 18
    _unary(op, opset=opset, rtol=1e-4, atol=1e-5, **attrs)


def test_softmax_opset11_coerces_to_2d():
    _unary("Softmax", shape=(2, 3, 4), opset=11, axis=1)


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less", "Greater"])
def test_binary_broadcasting(op):
    a, b = _x(2, 3, 4), _x(3, 1)
    if op == "Pow":
        a = np.abs(a) + 0.5
    out = TP.BOOL if op in ("Equal", "Less", "Greater") else F
    model = make_model(helper.make_node(op, ["a", "b"], ["y"]), [("a", F, [2, 3, 4]), ("b", F, [3, 1])],
                       [("y", out, None)])
    check_against_ort(model, {"a": a, "b": b}, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64", "float16", "float64"])
def test_dtypes_add_and_cast(dtype):
    a = (RNG.integers(0, 50, (3, 4))).astype(dtype)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    nodes = [helper.make_node("Add", ["a", "a"], ["s"]), helper.make_node("Cast", ["s"], ["y"], to=TP.FLOAT)]
    model = make_model(nodes, [("a", elem, [3, 4])], [("y", F, [3, 4])])
    check_against_ort(model, {"a": a})


def test_integer_mod_and_bitshift():
    a = RNG.integers(-20, 20, (6,)).astype("int32")
    b = np.array([3, -3, 5, 7, -2, 4], "int32")
    model = make_model(helper.make_node("Mod", ["a", "b"], ["y"]), [("a", TP.INT32, [6]), ("b", TP.INT32, [6])],
                       [("y", TP.INT32, [6])])
    check_against_ort(model, {"a": a, "b": b})
    u = np.array([1, 2, 3], "uint32")
    model = make_model(helper.make_node("BitShift", ["a", "b"], ["y"], direction="LEFT"),
                       [("a", TP.UINT32, [3]), ("b", TP.UINT32, [3])], [("y", TP.UINT32, [3])])
    check_against_ort(model, {"a": u, "b": u})


def test_where_clip_and_variadic_mean():
    nodes = [helper.make_node("Greater", ["a", "b"], ["c"]), helper.make_node("Where", ["c", "a", "b"], ["w"]),
             helper.make_node("Clip", ["w", "lo", "hi"], ["k"]), helper.make_node("Mean", ["k", "a", "b"], ["y"])]
    lo, hi = helper.make_tensor("lo", F, [], [-0.5]), helper.make_tensor("hi", F, [], [0.5])
    model = make_model(nodes, [("a", F, [2, 3]), ("b", F, [2, 3])], [("y", F, [2, 3])], [lo, hi])
    check_against_ort(model, {"a": _x(2, 3), "b": _x(2, 3)})


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                                "ReduceL2", "ReduceLogSumExp", "ReduceSumSquare"])
def test_reductions_axes_input(op):
    axes = helper.make_tensor("axes", TP.INT64, [1], [1])
    model = make_model(helper.make_node(op, ["x", "axes"], ["y"], keepdims=0), [("x", F, [2, 3, 4])],
                       [("y", F, [2, 4])], [axes], opset=18)
    check_against_ort(model, {"x": _x(2, 3, 4)}, rtol=1e-4)


def test_argmax_select_last_index():
    x = np.array([[1, 3, 3], [2, 2, 0]], "float32")
    model = make_model(helper.make_node("ArgMax", ["x"], ["y"], axis=1, select_last_index=1),
                       [("x", F, [2, 3])], [("y", TP.INT64, [2, 1])])
    check_against_ort(model, {"x": x})


def _runtime(op, x, args: dict, out_rank: int, out_type=F, **attrs):
    names = ["x", *args]
    inputs = [("x", helper.np_dtype_to_tensor_dtype(x.dtype), list(x.shape))]
    inputs += [(n, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape)) for n, v in args.items()]
    model = make_model(helper.make_node(op, names, ["y"], **attrs), inputs,
                       [("y", out_type, [f"d{i}" for i in range(out_rank)])])
    check_against_ort(model, {"x": x, **args})


def test_runtime_reshape_with_zero_and_minus_one():
    _runtime("Reshape", _x(2, 3, 4), {"s": np.array([0, -1], "int64")}, 2)


def test_runtime_expand_slice_tile():
    _runtime("Expand", _x(3, 1), {"s": np.array([2, 1, 4], "int64")}, 3)
    _runtime("Slice", _x(4, 5), {"st": np.array([1, -1], "int64"), "en": np.array([10, 0], "int64"),
                                 "ax": np.array([0, 1], "int64"), "sp": np.array([2, -2], "int64")}, 2)
    _runtime("Tile", _x(2, 3), {"r": np.array([2, 2], "int64")}, 2)


def test_runtime_constant_of_shape_and_range():
    model = make_model(helper.make_node("ConstantOfShape", ["s"], ["y"],
                                        value=helper.make_tensor("v", TP.INT32, [1], [7])),
                       [("s", TP.INT64, [2])], [("y", TP.INT32, ["a", "b"])])
    check_against_ort(model, {"s": np.array([3, 2], "int64")})
    model = make_model(helper.make_node("Range", ["a", "b", "c"], ["y"]),
                       [(n, F, []) for n in "abc"], [("y", F, ["n"])])
    check_against_ort(model, {"a": np.array(1.0, "float32"), "b": np.array(4.2, "float32"),
                              "c": np.array(0.5, "float32")})


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "wrap"])
def test_pad_modes(mode):
    pads = helper.make_tensor("p", TP.INT64, [4], [1, 2, 1, 0])
    model = make_model(helper.make_node("Pad", ["x", "p"], ["y"], mode=mode), [("x", F, [3, 4])],
                       [("y", F, [5, 6])], [pads], opset=19)
    check_against_ort(model, {"x": _x(3, 4)})


def test_layout_ops_chain():
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
             helper.make_node("Split", ["t"], ["a", "b"], axis=2, num_outputs=2),
             helper.make_node("Concat", ["b", "a"], ["c"], axis=1),
             helper.make_node("Flatten", ["c"], ["y"], axis=1)]
    model = make_model(nodes, [("x", F, [2, 4, 6])], [("y", F, [2, 48])], opset=18)
    check_against_ort(model, {"x": _x(2, 4, 6)})


def test_gather_negative_indices_and_gather_elements():
    idx = helper.make_tensor("i", TP.INT64, [2], [-1, 0])
    nodes = [helper.make_node("Gather", ["x", "i"], ["g"], axis=1),
             helper.make_node("GatherElements", ["x", "j"], ["y"], axis=1)]
    model = make_model(nodes, [("x", F, [3, 4]), ("j", TP.INT64, [3, 2])],
                       [("g", F, [3, 2]), ("y", F, [3, 2])], [idx])
    check_against_ort(model, {"x": _x(3, 4), "j": np.array([[0, -1], [1, 2], [3, 0]], "int64")})


def test_depth_to_space_onehot_trilu_eyelike():
    _unary("DepthToSpace", shape=(1, 8, 2, 3), blocksize=2, mode="CRD")
    _unary("SpaceToDepth", shape=(1, 2, 4, 6), blocksize=2)
    _unary("EyeLike", shape=(3, 4), k=1)
    model = make_model(helper.make_node("Trilu", ["x"], ["y"], upper=0), [("x", F, [2, 3, 3])], [("y", F, [2, 3, 3])])
    check_against_ort(model, {"x": _x(2, 3, 3)})
    depth = helper.make_tensor("d", TP.INT64, [], [4])
    values = helper.make_tensor("v", F, [2], [0.0, 2.0])
    model = make_model(helper.make_node("OneHot", ["i", "d", "v"], ["y"], axis=0), [("i", TP.INT64, [3])],
                       [("y", F, [4, 3])], [depth, values])
    check_against_ort(model, {"i": np.array([0, -1, 2], "int64")})


@pytest.mark.parametrize("case", ["conv_same", "conv_group_bias", "conv1d", "convT", "maxpool", "avgpool_pad",
                                  "global_lp"])
def test_conv_and_pool(case):
    x = _x(1, 4, 7, 7)
    w = helper.make_tensor("w", F, [6, 4, 3, 3], _x(6, 4, 3, 3).ravel())
    if case == "conv_same":
        node, inits = helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2]), [w]
    elif case == "conv_group_bias":
        w = helper.make_tensor("w", F, [4, 2, 3, 3], _x(4, 2, 3, 3).ravel())
        b = helper.make_tensor("b", F, [4], _x(4).ravel())
        node, inits = helper.make_node("Conv", ["x", "w", "b"], ["y"], group=2, pads=[1, 0, 1, 2]), [w, b]
    elif case == "conv1d":
        x = _x(1, 4, 9)
        w = helper.make_tensor("w", F, [3, 4, 2], _x(3, 4, 2).ravel())
        node, inits = helper.make_node("Conv", ["x", "w"], ["y"], dilations=[2]), [w]
    elif case == "convT":
        w = helper.make_tensor("w", F, [4, 3, 3, 3], _x(4, 3, 3, 3).ravel())
        node, inits = helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], pads=[1, 1, 0, 0],
                                       output_padding=[1, 1]), [w]
    elif case == "maxpool":
        node, inits = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                                       ceil_mode=1), []
    elif case == "avgpool_pad":
        node, inits = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                       count_include_pad=1), []
    else:
        node, inits = helper.make_node("GlobalLpPool", ["x"], ["y"], p=3), []
    model = make_model(node, [("x", F, list(x.shape))], [("y", F, None)], inits, opset=18)
    check_against_ort(model, {"x": x}, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["BatchNormalization", "InstanceNormalization", "LayerNormalization",
                                "GroupNormalization", "LpNormalization", "LRN", "MeanVarianceNormalization"])
def test_normalizations(op):
    x = _x(2, 4, 3, 3)
    c = [helper.make_tensor(n, F, [4], (np.abs(_x(4)) + 0.5).ravel()) for n in ("s", "b", "m", "v")]
    if op == "BatchNormalization":
        node, inits = helper.make_node(op, ["x", "s", "b", "m", "v"], ["y"]), c
    elif op == "InstanceNormalization":
        node, inits = helper.make_node(op, ["x", "s", "b"], ["y"]), c[:2]
    elif op == "LayerNormalization":
        s = helper.make_tensor("s", F, [3, 3], _x(3, 3).ravel())
        node, inits = helper.make_node(op, ["x", "s"], ["y"], axis=2), [s]
    elif op == "GroupNormalization":
        node, inits = helper.make_node(op, ["x", "s", "b"], ["y"], num_groups=2), c[:2]
    elif op == "LRN":
        node, inits = helper.make_node(op, ["x"], ["y"], size=3), []
    else:
        node, inits = helper.make_node(op, ["x"], ["y"]), []
    model = make_model(node, [("x", F, [2, 4, 3, 3])], [("y", F, [2, 4, 3, 3])], inits, opset=21)
    check_against_ort(model, {"x": x}, rtol=1e-4, atol=1e-4)


def test_gemm_and_matmul_batched():
    a, b = _x(3, 4), _x(5, 4)
    c = helper.make_tensor("c", F, [5], _x(5).ravel())
    model = make_model(helper.make_node("Gemm", ["a", "b", "c"], ["y"], transB=1, alpha=0.5, beta=2.0),
                       [("a", F, [3, 4]), ("b", F, [5, 4])], [("y", F, [3, 5])], [c])
    check_against_ort(model, {"a": a, "b": b})
    model = make_model(helper.make_node("MatMul", ["a", "b"], ["y"]), [("a", F, [2, 3, 4]), ("b", F, [4, 5])],
                       [("y", F, [2, 3, 5])])
    check_against_ort(model, {"a": _x(2, 3, 4), "b": _x(4, 5)})


def test_batchnorm_running_stats_need_training_mode():
    c = [helper.make_tensor(n, F, [2], [1.0, 1.0]) for n in ("s", "b", "m", "v")]
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"], name="bn")
    model = make_model(node, [("x", F, [1, 2, 2])], [("y", F, [1, 2, 2]), ("rm", F, [2]), ("rv", F, [2])], c,
                       opset=14)
    with pytest.raises(ONNXImportError, match="'bn'.*training_mode=1"):
        from_onnx(model)


@pytest.mark.parametrize("src,to", [("float32", TP.INT32), ("int64", TP.DOUBLE), ("bool", TP.UINT8),
                                    ("uint16", TP.INT16)])
def test_bitcast_runtime_input(src, to):
    x = np.array([[1.5, -2.0, 0.0], [3.25, 7.0, 1.0]]).astype(src) if src != "bool" else \
        np.array([[True, False, True], [False, False, True]])
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    node = helper.make_node("BitCast", ["x"], ["y"], to=to)
    model = make_model(node, [("x", elem, [2, 3])], [("y", to, [2, 3])], opset=26)
    model.ir_version = 13
    (y,) = run_ember(model, {"x": x})
    np.testing.assert_array_equal(y, x.view(helper.tensor_dtype_to_np_dtype(to)))


def test_squeeze_runtime_axes_on_static_shape():
    node = helper.make_node("Squeeze", ["x", "axes"], ["y"])
    model = make_model(node, [("x", TP.FLOAT, [1, 3, 1, 5]), ("axes", TP.INT64, [2])], [("y", TP.FLOAT, [3, 5])],
                       opset=13)
    x = np.random.RandomState(0).standard_normal((1, 3, 1, 5)).astype("float32")
    (y,) = run_ember(model, {"x": x, "axes": np.array([0, -2], "int64")})
    np.testing.assert_array_equal(y, x.reshape(3, 5))
    model1 = make_model(node, [("x", TP.FLOAT, [1, 3, 1, 5]), ("axes", TP.INT64, [1])], [("y", TP.FLOAT, None)],
                        opset=13)
    with pytest.raises(ONNXImportError, match="do not determine the output shape"):
        from_onnx(model1)


def test_squeeze_runtime_axes_with_declared_output_shape():
    node = helper.make_node("Squeeze", ["x", "axes"], ["y"])
    model = make_model(node, [("x", TP.FLOAT, [1, 3, 1, 5]), ("axes", TP.INT64, [1])], [("y", TP.FLOAT, [1, 3, 5])],
                       opset=13)
    x = np.random.RandomState(0).standard_normal((1, 3, 1, 5)).astype("float32")
    (y,) = run_ember(model, {"x": x, "axes": np.array([2], "int64")})
    np.testing.assert_array_equal(y, x.reshape(1, 3, 5))


def test_celu_bfloat16_rounds_once():
    import ml_dtypes

    node = helper.make_node("Celu", ["x"], ["y"], alpha=2.0)
    model = make_model(node, [("x", TP.BFLOAT16, [5])], [("y", TP.BFLOAT16, [5])], opset=12)
    x = np.array([-3.0, -0.5, 0.0, 0.5, 3.0], np.float32)
    (y,) = run_ember(model, {"x": x.astype(ml_dtypes.bfloat16)})
    expected = (np.maximum(0, x) + np.minimum(0, 2 * (np.exp(x / 2) - 1))).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(y.astype(np.float32), expected.astype(np.float32))


@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16"])
def test_bitshift_out_of_range_amounts_follow_numpy(direction, dtype):
    x = np.array([-8, 4, -1, 5, 100], dtype=np.int64).astype(dtype)
    s = np.array([-1, 33, 100, 2, -64], dtype=np.int64).astype(dtype) if dtype != "uint16" else \
        np.array([1, 16, 40, 2, 0], dtype)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    node = helper.make_node("BitShift", ["x", "s"], ["y"], direction=direction)
    model = make_model(node, [("x", elem, [5]), ("s", elem, [5])], [("y", elem, [5])], opset=11)
    (y,) = run_ember(model, {"x": x, "s": s})
    with np.errstate(all="ignore"):
        fn = np.left_shift if direction == "LEFT" else np.right_shift
        width = np.dtype(dtype).itemsize * 8
        outside = (s.astype(np.int64) < 0) | (s.astype(np.int64) >= width)
        fill = np.zeros_like(x) if direction == "LEFT" or dtype == "uint16" else np.right_shift(x, width - 1)
        expected = np.where(outside, fill, fn(x, np.where(outside, 0, s).astype(dtype)))
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_space_to_depth_modes(mode):
    from onnx.reference import ReferenceEvaluator

    node = helper.make_node("SpaceToDepth", ["x"], ["y"], blocksize=2, mode=mode)
    model = make_model(node, [("x", TP.FLOAT, [1, 2, 4, 6])], [("y", TP.FLOAT, [1, 8, 2, 3])], opset=28)
    model.ir_version = 14
    x = np.arange(48, dtype="float32").reshape(1, 2, 4, 6)
    (y,) = run_ember(model, {"x": x})
    np.testing.assert_array_equal(y, ReferenceEvaluator(model).run(None, {"x": x})[0])


@pytest.mark.parametrize("attrs", [{"kernel_shape": [2, 2]}, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1],
                                                               "strides": [2, 2]},
                                   {"kernel_shape": [2, 3], "storage_order": 1, "dilations": [2, 1]}])
def test_maxpool_indices_match_onnxruntime(attrs):
    # ONNX's reference evaluator miscounts rows of non-square windows' indices; ORT is the oracle
    from onnx_helpers import run_ort

    node = helper.make_node("MaxPool", ["x"], ["y", "i"], **attrs)
    model = make_model(node, [("x", TP.FLOAT, [2, 3, 6, 7])], [("y", TP.FLOAT, None), ("i", TP.INT64, None)],
                       opset=12)
    x = np.random.RandomState(2).standard_normal((2, 3, 6, 7)).astype("float32")
    y, i = run_ember(model, {"x": x})
    ref_y, ref_i = run_ort(model, {"x": x})
    np.testing.assert_array_equal(y, ref_y)
    np.testing.assert_array_equal(i, ref_i)


@pytest.mark.parametrize("attrs,group", [({}, 1), ({"strides": [2, 1, 2], "pads": [1, 0, 0, 0, 1, 1],
                                                   "output_padding": [1, 0, 0]}, 1),
                                         ({"dilations": [1, 2, 1], "strides": [1, 2, 1]}, 2)])
def test_conv_transpose_3d(attrs, group):
    rng = np.random.RandomState(3)
    x = rng.standard_normal((1, 2, 3, 4, 3)).astype("float32")
    w = rng.standard_normal((2, 3, 2, 2, 3)).astype("float32")
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], group=group, **attrs)
    model = make_model(node, [("x", TP.FLOAT, list(x.shape)), ("w", TP.FLOAT, list(w.shape))],
                       [("y", TP.FLOAT, None)], opset=17)
    check_against_ort(model, {"x": x, "w": w}, rtol=1e-4, atol=1e-5)


def test_split_into_one_part_is_a_tensor():
    node = helper.make_node("Split", ["x"], ["y"], axis=0)
    model = make_model(node, [("x", TP.FLOAT, [3, 2])], [("y", TP.FLOAT, [3, 2])], opset=11)
    x = np.arange(6, dtype="float32").reshape(3, 2)
    (y,) = run_ember(model, {"x": x})
    np.testing.assert_array_equal(y, x)

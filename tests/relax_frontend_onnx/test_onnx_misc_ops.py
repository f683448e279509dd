"""ONNX ReverseSequence, CumSum/CumProd (constant and run-time axis), Compress and Det
against ONNX Runtime (ONNX reference where Runtime lacks the op)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx_helpers import check_against_ort, make_model, run_ember

from ember.relax.frontend.onnx import ONNXImportError, from_onnx

F, I64 = TensorProto.FLOAT, TensorProto.INT64


@pytest.mark.parametrize("batch_axis,time_axis", [(1, 0), (0, 1)])
def test_reverse_sequence_run_time_lengths(batch_axis, time_axis):
    shape = [4, 3] if time_axis == 0 else [3, 4]
    model = make_model([helper.make_node("ReverseSequence", ["x", "lens"], ["y"], batch_axis=batch_axis,
                                         time_axis=time_axis)],
                       [("x", F, shape + [2]), ("lens", I64, [3])], [("y", F, shape + [2])])
    x = np.arange(24, dtype="float32").reshape(shape + [2])
    for lens in ([4, 1, 2], [2, 4, 3]):
        check_against_ort(model, {"x": x, "lens": np.array(lens, "int64")})


@pytest.mark.parametrize("op", ["CumSum", "CumProd"])
@pytest.mark.parametrize("exclusive,reverse", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_cumulative_constant_axis(op, exclusive, reverse):
    axis = helper.make_tensor("axis", I64, [], [1])
    model = make_model([helper.make_node(op, ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)],
                       [("x", F, [2, 5])], [("y", F, [2, 5])], initializers=[axis], opset=26)
    x = np.random.default_rng(0).uniform(0.5, 1.5, (2, 5)).astype("float32")
    from onnx.reference import ReferenceEvaluator

    expected = ReferenceEvaluator(model).run(None, {"x": x})[0]
    np.testing.assert_allclose(run_ember(model, {"x": x})[0], expected, rtol=1e-5)


def test_cumsum_run_time_axis():
    model = make_model([helper.make_node("CumSum", ["x", "axis"], ["y"])],
                       [("x", F, [2, 3, 4]), ("axis", I64, [])], [("y", F, [2, 3, 4])], opset=14)
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype("float32")
    for axis in (0, 2, -2):
        check_against_ort(model, {"x": x, "axis": np.array(axis, "int64")})


@pytest.mark.parametrize("axis", [None, 0, -1])
def test_compress_known_condition(axis):
    cond = helper.make_tensor("cond", TensorProto.BOOL, [3], [True, False, True])
    kwargs = {} if axis is None else {"axis": axis}
    out_shape = [2] if axis is None else ([2, 3] if axis == 0 else [3, 2])
    model = make_model([helper.make_node("Compress", ["x", "cond"], ["y"], **kwargs)],
                       [("x", F, [3, 3])], [("y", F, out_shape)], initializers=[cond])
    check_against_ort(model, {"x": np.arange(9, dtype="float32").reshape(3, 3)})


def test_compress_run_time_condition():
    model = make_model([helper.make_node("Compress", ["x", "cond"], ["y"], axis=1)],
                       [("x", F, [2, 4]), ("cond", TensorProto.BOOL, [3])], [("y", F, [2, None])])
    x = np.arange(8, dtype="float32").reshape(2, 4)
    for cond in ([True, False, True], [False, False, False], [False, True, True]):
        check_against_ort(model, {"x": x, "cond": np.array(cond)})


@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (2, 4, 4)])
def test_det(shape):
    model = make_model([helper.make_node("Det", ["x"], ["y"])], [("x", F, list(shape))],
                       [("y", F, list(shape[:-2]))])
    x = np.random.default_rng(2).standard_normal(shape).astype("float32")
    got = run_ember(model, {"x": x})[0]
    np.testing.assert_allclose(got, np.linalg.det(x), rtol=1e-4, atol=1e-5)


def test_det_too_large_is_refused():
    model = make_model([helper.make_node("Det", ["x"], ["y"])], [("x", F, [5, 5])], [("y", F, [])])
    with pytest.raises(ONNXImportError, match="up to 4x4"):
        from_onnx(model)


@pytest.mark.parametrize("mode,indices", [("linear", [1, 2]), ("circular", [3, 0])])
def test_tensor_scatter_kv_cache_write(mode, indices):
    from onnx.reference import ReferenceEvaluator

    model = make_model([helper.make_node("TensorScatter", ["cache", "upd", "idx"], ["out"], mode=mode)],
                       [("cache", F, [2, 3, 5, 4]), ("upd", F, [2, 3, 2, 4]), ("idx", I64, [2])],
                       [("out", F, [2, 3, 5, 4])], opset=24)
    rng = np.random.default_rng(4)
    feeds = {"cache": rng.standard_normal((2, 3, 5, 4)).astype("float32"),
             "upd": rng.standard_normal((2, 3, 2, 4)).astype("float32"), "idx": np.array(indices, "int64")}
    np.testing.assert_array_equal(run_ember(model, feeds)[0], ReferenceEvaluator(model).run(None, feeds)[0])


def test_max_unpool_inverts_max_pool():
    from onnx_helpers import run_ort

    pool = make_model([helper.make_node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2])],
                      [("x", F, [2, 3, 4, 6])], [("p", F, [2, 3, 2, 3]), ("i", I64, [2, 3, 2, 3])])
    x = np.random.default_rng(5).standard_normal((2, 3, 4, 6)).astype("float32")
    p, i = run_ort(pool, {"x": x})
    unpool = make_model([helper.make_node("MaxUnpool", ["p", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
                        [("p", F, [2, 3, 2, 3]), ("i", I64, [2, 3, 2, 3])], [("y", F, [2, 3, 4, 6])])
    check_against_ort(unpool, {"p": p, "i": i})


def test_deform_conv_with_bias_and_mask():
    from onnx.reference import ReferenceEvaluator

    node = helper.make_node("DeformConv", ["x", "w", "off", "b", "mask"], ["y"], kernel_shape=[2, 2], pads=[1, 1, 1, 1])
    model = make_model([node], [("x", F, [1, 2, 4, 4]), ("w", F, [3, 2, 2, 2]), ("off", F, [1, 8, 5, 5]),
                                ("b", F, [3]), ("mask", F, [1, 4, 5, 5])], [("y", F, [1, 3, 5, 5])], opset=22)
    rng = np.random.default_rng(6)
    feeds = {"x": rng.standard_normal((1, 2, 4, 4)), "w": rng.standard_normal((3, 2, 2, 2)),
             "off": rng.standard_normal((1, 8, 5, 5)), "b": rng.standard_normal(3),
             "mask": rng.uniform(0, 1, (1, 4, 5, 5))}
    feeds = {k: v.astype("float32") for k, v in feeds.items()}
    np.testing.assert_allclose(run_ember(model, feeds)[0], ReferenceEvaluator(model).run(None, feeds)[0],
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("runtime_shape", [False, True])
def test_maxunpool_with_larger_output_shape(runtime_shape):
    from onnx import TensorProto as TP
    from onnx import numpy_helper
    from onnx.reference import ReferenceEvaluator

    node = helper.make_node("MaxUnpool", ["x", "i", "shape"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    x = np.array([[[[5, 6], [7, 8]]]], "float32")
    i = np.array([[[[5, 7], [13, 15]]]], "int64")
    shape = np.array([1, 1, 5, 5], "int64")
    inputs = [("x", TP.FLOAT, [1, 1, 2, 2]), ("i", TP.INT64, [1, 1, 2, 2])]
    feeds = {"x": x, "i": i}
    if runtime_shape:
        inputs.append(("shape", TP.INT64, [4]))
        feeds["shape"] = shape
        inits = []
    else:
        inits = [numpy_helper.from_array(shape, "shape")]
    model = make_model(node, inputs, [("y", TP.FLOAT, [1, 1, 5, 5])], initializers=inits, opset=11)
    (y,) = run_ember(model, feeds)
    np.testing.assert_array_equal(y, ReferenceEvaluator(model).run(None, feeds)[0])

"""from_onnx: graph inputs/outputs, initializers (constants or kept as parameters),
symbolic dims, import-time folding, function expansion, and the error paths."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper
from onnx_helpers import check_against_ort, make_model, run_ember

from ember import relax
from ember.relax.frontend.onnx import ONNXImportError, OpNotImplemented, from_onnx

RNG = np.random.default_rng(0)


def _mlp():
    w = RNG.standard_normal((4, 3)).astype("float32")
    b = RNG.standard_normal(3).astype("float32")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"]), helper.make_node("Add", ["y", "b"], ["z"]),
             helper.make_node("Sigmoid", ["z"], ["out"])]
    return make_model(nodes, [("x", TP.FLOAT, ["batch", 4])], [("out", TP.FLOAT, ["batch", 3])],
                      [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])


def test_symbolic_batch_runs_two_sizes():
    model = _mlp()
    mod = from_onnx(model)
    assert [p.name_hint for p in mod["main"].params] == ["x"]
    for n in (1, 7):
        check_against_ort(model, {"x": RNG.standard_normal((n, 4)).astype("float32")})


def test_keep_params_in_input():
    model = _mlp()
    mod = from_onnx(model, keep_params_in_input=True)
    assert [p.name_hint for p in mod["main"].params] == ["x", "w", "b"]
    assert mod["main"].attrs["num_input"] == 1
    assert len(mod["main"].attrs["params"]) == 2
    check_against_ort(model, {"x": RNG.standard_normal((2, 4)).astype("float32")},
                      keep_params_in_input=True)


def test_shape_dict_fixes_dims():
    mod = from_onnx(_mlp(), shape_dict={"x": [5, 4]})
    assert str(mod["main"].params[0].struct_info) == str(relax.TensorStructInfo((5, 4), "float32"))


def test_several_outputs_are_a_tuple():
    nodes = [helper.make_node("Abs", ["x"], ["a"]), helper.make_node("Neg", ["x"], ["b"])]
    model = make_model(nodes, [("x", TP.FLOAT, [3])], [("a", TP.FLOAT, [3]), ("b", TP.FLOAT, [3])])
    check_against_ort(model, {"x": RNG.standard_normal(3).astype("float32")})


def test_loads_from_path(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(_mlp(), str(path))
    mod = from_onnx(str(path))
    assert "main" in mod


def test_constant_subgraph_folds_at_import():
    # Shape -> Gather -> Unsqueeze -> Concat -> Reshape: all known at import
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Constant", [], ["i"], value=numpy_helper.from_array(np.array(0, "int64"))),
        helper.make_node("Gather", ["s", "i"], ["d0"]),
        helper.make_node("Constant", [], ["ax"], value=numpy_helper.from_array(np.array([0], "int64"))),
        helper.make_node("Unsqueeze", ["d0", "ax"], ["d0v"]),
        helper.make_node("Constant", [], ["m1"], value=numpy_helper.from_array(np.array([-1], "int64"))),
        helper.make_node("Concat", ["d0v", "m1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"]),
    ]
    model = make_model(nodes, [("x", TP.FLOAT, [2, 3, 4])], [("y", TP.FLOAT, [2, 12])])
    text = from_onnx(model).script()
    assert "R.shape_of" not in text and "Gather" not in text
    check_against_ort(model, {"x": RNG.standard_normal((2, 3, 4)).astype("float32")})


def test_function_op_is_expanded(monkeypatch):
    # with its converter taken away, the op imports through its ONNX function body
    from ember.relax.frontend.onnx import registry

    registry.load_converters()
    op = "MeanVarianceNormalization"
    monkeypatch.delitem(registry.CONVERTERS, ("", op), raising=False)
    assert registry.find_converter("", op, 13) is None
    model = make_model(helper.make_node(op, ["x"], ["y"]), [("x", TP.FLOAT, [2, 3, 4, 5])],
                       [("y", TP.FLOAT, [2, 3, 4, 5])], opset=13)
    assert "ReduceMean" not in from_onnx(model).script()
    check_against_ort(model, {"x": RNG.standard_normal((2, 3, 4, 5)).astype("float32")}, atol=1e-4)


def test_unsupported_ops_listed_at_once():
    nodes = [helper.make_node("NoSuchOp", ["x"], ["a"], name="first", domain="my.domain"),
             helper.make_node("NoSuchOp", ["a"], ["b"], name="second", domain="my.domain"),
             helper.make_node("OtherOp", ["b"], ["c"], name="third", domain="my.domain")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TP.FLOAT, [1])],
                              [helper.make_tensor_value_info("c", TP.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("my.domain", 1)])
    with pytest.raises(OpNotImplemented) as err:
        from_onnx(model)
    text = str(err.value)
    assert "2 operator(s)" in text
    assert "my.domain.NoSuchOp (opset 1): nodes 'first', 'second'" in text
    assert "my.domain.OtherOp (opset 1): nodes 'third'" in text


def test_invalid_model_is_reported():
    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TP.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TP.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.graph.node[0].input[0] = "missing"
    with pytest.raises(ONNXImportError, match="not valid ONNX"):
        from_onnx(model)


def test_bad_model_argument():
    with pytest.raises(TypeError, match="must be an onnx.ModelProto or a path"):
        from_onnx(42)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        from_onnx("/nonexistent/model.onnx")


def test_converter_failure_names_the_node():
    node = helper.make_node("Gemm", ["a", "b"], ["y"], name="the_gemm")
    model = make_model(node, [("a", TP.FLOAT, [2, 3]), ("b", TP.FLOAT, [4, 5])], [("y", TP.FLOAT, [2, 5])])
    with pytest.raises(ONNXImportError, match="the_gemm"):
        run_ember(model, {})


@pytest.mark.parametrize("names,expected", [([".", "123"], ["_", "input_123"]), ([".", "_"], ["_", "__1"]),
                                            (["123", "input_123"], ["input_123", "input_123_1"])])
def test_input_names_sanitized(names, expected):
    node = helper.make_node("Add", names, ["out"])
    model = make_model(node, [(n, TP.FLOAT, [2]) for n in names], [("out", TP.FLOAT, [2])])
    assert [p.name_hint for p in from_onnx(model)["main"].params] == expected
    assert [p.name_hint for p in from_onnx(model, sanitize_input_names=False)["main"].params] == names


def test_placeholder_dim_names_are_independent_dims():
    # "?" (and other names without a word character) mark unknown dims, not one shared dim
    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TP.FLOAT, ["?", "?"])],
                              [helper.make_tensor_value_info("y", TP.FLOAT, ["?", "?"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = np.array([[-1.0, 2.0, 3.0], [4.0, -5.0, 6.0]], "float32")
    (y,) = run_ember(model, {"x": x})
    np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_missing_domain_opset_and_output_shape_are_accepted():
    node = helper.make_node("FastGelu", ["x"], ["y"], domain="com.microsoft")
    out = helper.make_tensor_value_info("y", TP.FLOAT, None)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TP.FLOAT, [4])], [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])  # no com.microsoft entry
    x = np.array([-1.0, 0.0, 0.5, 2.0], "float32")
    (y,) = run_ember(model, {"x": x})
    assert y.shape == (4,)
    assert y[1] == 0.0 and y[3] > 1.9

"""ONNX If / Loop / Scan through from_onnx + relax.build, checked against ONNX Runtime.

The If and Loop models take their branch / trip count from an input *value*, so the
same compiled module is run at two values and must follow ONNX Runtime at both."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx_helpers import check_against_ort, make_model, run_ember, run_ort

from ember.relax.frontend.onnx import ONNXImportError, from_onnx

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def if_model():
    """res = x * 2 + y if sum(x) > 0 else x - y  (both branches read outer values)."""
    then_g = helper.make_graph(
        [helper.make_node("Constant", [], ["two"], value=helper.make_tensor("t", F, [], [2.0])),
         helper.make_node("Mul", ["x", "two"], ["x2"]),
         helper.make_node("Add", ["x2", "y"], ["then_out"])],
        "then", [], [_vi("then_out", F, [3, 4])])
    else_g = helper.make_graph([helper.make_node("Sub", ["x", "y"], ["else_out"])],
                               "else", [], [_vi("else_out", F, [3, 4])])
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("z", F, [], [0.0])),
             helper.make_node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["res"], then_branch=then_g, else_branch=else_g)]
    return make_model(nodes, [("x", F, [3, 4]), ("y", F, [3, 4])], [("res", F, [3, 4])])


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_if_branch_chosen_at_run_time(sign):
    rng = np.random.default_rng(0)
    x = (np.abs(rng.standard_normal((3, 4))) * sign).astype("float32")
    y = rng.standard_normal((3, 4)).astype("float32")
    check_against_ort(if_model(), {"x": x, "y": y})


def test_if_two_outputs_and_known_condition():
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["a"]),
                                helper.make_node("Neg", ["x"], ["b"])], "t", [],
                               [_vi("a", F, [2]), _vi("b", F, [2])])
    else_g = helper.make_graph([helper.make_node("Abs", ["x"], ["c"]),
                                helper.make_node("Exp", ["x"], ["d"])], "e", [],
                               [_vi("c", F, [2]), _vi("d", F, [2])])
    x = np.array([-1.5, 2.0], "float32")
    for cond_value in (True, False):
        runtime = make_model([helper.make_node("If", ["cond"], ["o1", "o2"], then_branch=then_g,
                                               else_branch=else_g)],
                             [("cond", B, []), ("x", F, [2])], [("o1", F, [2]), ("o2", F, [2])])
        check_against_ort(runtime, {"cond": np.array(cond_value), "x": x})
        folded = make_model([helper.make_node("Constant", [], ["cond"], value=helper.make_tensor("k", B, [], [cond_value])),
                             helper.make_node("If", ["cond"], ["o1", "o2"], then_branch=then_g, else_branch=else_g)],
                            [("x", F, [2])], [("o1", F, [2]), ("o2", F, [2])])
        mod = from_onnx(folded)
        assert "If" not in mod["main"].script()  # the known branch was inlined
        check_against_ort(folded, {"x": x})


def loop_model():
    """acc = x; repeat trip_count times (or until sum(acc) > limit): acc = acc * 1.5 + x;
    scan output: acc after every iteration.  Reads outer x inside the body."""
    body = helper.make_graph(
        [helper.make_node("Constant", [], ["k"], value=helper.make_tensor("k", F, [], [1.5])),
         helper.make_node("Mul", ["acc_in", "k"], ["m"]),
         helper.make_node("Add", ["m", "x"], ["acc_out"]),
         helper.make_node("ReduceSum", ["acc_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["cond_out"]),
         helper.make_node("Identity", ["acc_out"], ["scan"])],
        "body", [_vi("i", I64, []), _vi("cond_in", B, []), _vi("acc_in", F, [2, 3])],
        [_vi("cond_out", B, []), _vi("acc_out", F, [2, 3]), _vi("scan", F, [2, 3])])
    node = helper.make_node("Loop", ["n", "", "x"], ["acc", "scans"], body=body)
    return make_model([node], [("n", I64, []), ("x", F, [2, 3]), ("limit", F, [])],
                      [("acc", F, [2, 3]), ("scans", F, [None, 2, 3])])


@pytest.mark.parametrize("n,limit", [(3, 1e9), (7, 1e9), (10, 40.0)])
def test_loop_trip_count_and_condition_at_run_time(n, limit):
    x = np.arange(6, dtype="float32").reshape(2, 3) / 4
    feeds = {"n": np.array(n, "int64"), "x": x, "limit": np.array(limit, "float32")}
    check_against_ort(loop_model(), feeds)


def test_loop_zero_iterations():
    """No iteration: the carried value comes back unchanged and the scan output is empty
    with the body's element shape (ONNX Runtime gives shape (0,) here)."""
    x = np.ones((2, 3), "float32")
    acc, scans = run_ember(loop_model(), {"n": np.array(0, "int64"), "x": x, "limit": np.array(1.0, "float32")})
    np.testing.assert_array_equal(acc, x)
    assert scans.shape == (0, 2, 3)


def test_loop_one_compiled_module_two_trip_counts():
    from ember import relax, cpu, nd
    from ember.relax.frontend import detach_params

    mod, _ = detach_params(from_onnx(loop_model()))
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), cpu())
    x = np.ones((2, 3), "float32")
    for n in (2, 5):
        feeds = {"n": np.array(n, "int64"), "x": x, "limit": np.array(1e9, "float32")}
        acc, scans = vm["main"](nd.array(feeds["n"]), nd.array(x), nd.array(feeds["limit"]))
        expected = run_ort(loop_model(), feeds)
        np.testing.assert_allclose(acc.numpy(), expected[0], rtol=1e-6)
        assert scans.numpy().shape == (n, 2, 3)
        np.testing.assert_allclose(scans.numpy(), expected[1], rtol=1e-6)


def test_loop_with_if_inside_body():
    """The body holds an If on the iteration number: add x on even steps, subtract on odd."""
    then_g = helper.make_graph([helper.make_node("Add", ["a", "x"], ["t_out"])], "t", [], [_vi("t_out", F, [4])])
    else_g = helper.make_graph([helper.make_node("Sub", ["a", "x"], ["e_out"])], "e", [], [_vi("e_out", F, [4])])
    body = helper.make_graph(
        [helper.make_node("Constant", [], ["two"], value=helper.make_tensor("two", I64, [], [2])),
         helper.make_node("Mod", ["i", "two"], ["r"]),
         helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("zero", I64, [], [0])),
         helper.make_node("Equal", ["r", "zero"], ["even"]),
         helper.make_node("Mul", ["a_in", "a_in"], ["a"]),
         helper.make_node("If", ["even"], ["a_out"], then_branch=then_g, else_branch=else_g),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body", [_vi("i", I64, []), _vi("c_in", B, []), _vi("a_in", F, [4])],
        [_vi("c_out", B, []), _vi("a_out", F, [4])])
    model = make_model([helper.make_node("Loop", ["n", "c", "a0"], ["a"], body=body)],
                       [("n", I64, []), ("c", B, []), ("a0", F, [4]), ("x", F, [4])], [("a", F, [4])])
    for n in (1, 4):
        feeds = {"n": np.array(n, "int64"), "c": np.array(True), "a0": np.full(4, 0.5, "float32"),
                 "x": np.array([0.1, 0.2, -0.3, 0.4], "float32")}
        check_against_ort(model, feeds)


def test_scan_sum_forward_and_reverse():
    body = helper.make_graph([helper.make_node("Add", ["s_in", "v"], ["s_out"]),
                              helper.make_node("Identity", ["s_out"], ["y"])],
                             "body", [_vi("s_in", F, [2]), _vi("v", F, [2])],
                             [_vi("s_out", F, [2]), _vi("y", F, [2])])
    for directions in ([0], [1]):
        node = helper.make_node("Scan", ["init", "xs"], ["s", "ys"], body=body, num_scan_inputs=1,
                                scan_input_directions=directions, scan_output_axes=[1])
        model = make_model([node], [("init", F, [2]), ("xs", F, [5, 2])], [("s", F, [2]), ("ys", F, [2, 5])])
        rng = np.random.default_rng(1)
        check_against_ort(model, {"init": rng.standard_normal(2).astype("float32"),
                                  "xs": rng.standard_normal((5, 2)).astype("float32")})


def test_loop_without_trip_count_or_condition_is_refused():
    body = helper.make_graph([helper.make_node("Identity", ["c_in"], ["c_out"]),
                              helper.make_node("Identity", ["a_in"], ["a_out"])],
                             "body", [_vi("i", I64, []), _vi("c_in", B, []), _vi("a_in", F, [1])],
                             [_vi("c_out", B, []), _vi("a_out", F, [1])])
    model = make_model([helper.make_node("Loop", ["", "", "a0"], ["a"], body=body)],
                       [("a0", F, [1])], [("a", F, [1])])
    with pytest.raises(ONNXImportError, match="neither a trip count nor a condition"):
        from_onnx(model)



def test_loop_scan_output_feeds_elementwise_ops():
    """The stacked scan output has a symbolic leading dim, so later ops legalize."""
    model = loop_model()
    graph = model.graph
    graph.node.append(helper.make_node("Cast", ["scans"], ["scans16"], to=TensorProto.FLOAT16))
    graph.output.append(helper.make_tensor_value_info("scans16", TensorProto.FLOAT16, [None, 2, 3]))
    x = np.arange(6, dtype="float32").reshape(2, 3) / 4
    feeds = {"n": np.array(4, "int64"), "x": x, "limit": np.array(1e9, "float32")}
    check_against_ort(model, feeds, rtol=1e-3, atol=1e-3)

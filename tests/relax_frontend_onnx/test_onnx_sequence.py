"""ONNX sequence and optional ops (Relax tuples) built and consumed inside one graph,
against ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx_helpers import check_against_ort, make_model

from ember.relax.frontend.onnx import ONNXImportError, from_onnx

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _c(name, values, t=I64):
    return helper.make_node("Constant", [], [name], value=helper.make_tensor(name + "_v", t, [], values))


def test_construct_insert_erase_at_length_concat():
    nodes = [helper.make_node("SequenceConstruct", ["a", "b"], ["s0"]),
             _c("p0", [0]), helper.make_node("SequenceInsert", ["s0", "c", "p0"], ["s1"]),  # c, a, b
             helper.make_node("SequenceInsert", ["s1", "a"], ["s2"]),  # c, a, b, a
             _c("pm", [-3]), helper.make_node("SequenceErase", ["s2", "pm"], ["s3"]),  # c, b, a
             _c("p1", [1]), helper.make_node("SequenceAt", ["s3", "p1"], ["at1"]),
             helper.make_node("SequenceLength", ["s3"], ["n"]),
             helper.make_node("ConcatFromSequence", ["s3"], ["cat"], axis=0),
             helper.make_node("ConcatFromSequence", ["s3"], ["stk"], axis=-1, new_axis=1)]
    model = make_model(nodes, [("a", F, [2, 3]), ("b", F, [2, 3]), ("c", F, [2, 3])],
                       [("at1", F, [2, 3]), ("n", I64, []), ("cat", F, [6, 3]), ("stk", F, [2, 3, 3])])
    rng = np.random.default_rng(0)
    check_against_ort(model, {k: rng.standard_normal((2, 3)).astype("float32") for k in "abc"})


@pytest.mark.parametrize("split,keepdims", [(None, 1), (None, 0), ("scalar", 1), ("list", 1)])
def test_split_to_sequence(split, keepdims):
    inits, names = [], ["x"]
    if split == "scalar":
        inits.append(helper.make_tensor("sp", I64, [], [2]))
        names.append("sp")
    elif split == "list":
        inits.append(helper.make_tensor("sp", I64, [2], [1, 4]))
        names.append("sp")
    nodes = [helper.make_node("SplitToSequence", names, ["s"], axis=1, keepdims=keepdims),
             helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0, new_axis=0)]
    out = {None: [5 * 2, 1] if keepdims else [10], "scalar": [6, 2], "list": None}[split]
    model = make_model(nodes, [("x", F, [2, 5])], [("y", F, out)], initializers=inits)
    if split == "list":  # pieces of different widths: concatenate along the split axis instead
        nodes[-1] = helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=1)
        model = make_model(nodes, [("x", F, [2, 5])], [("y", F, [2, 5])], initializers=inits)
    if split == "scalar":  # 5 = 2 + 2 + 1: concatenate along the split axis
        nodes[-1] = helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=1)
        model = make_model(nodes, [("x", F, [2, 5])], [("y", F, [2, 5])], initializers=inits)
    check_against_ort(model, {"x": np.arange(10, dtype="float32").reshape(2, 5)})


def test_optional_has_and_get_element():
    nodes = [helper.make_node("Optional", ["x"], ["opt"]),
             helper.make_node("OptionalHasElement", ["opt"], ["has"]),
             helper.make_node("OptionalGetElement", ["opt"], ["y"])]
    model = make_model(nodes, [("x", F, [3])], [("has", TensorProto.BOOL, []), ("y", F, [3])], opset=18)
    check_against_ort(model, {"x": np.array([1, 2, 3], "float32")})


def test_sequence_at_run_time_position_is_refused():
    nodes = [helper.make_node("SequenceConstruct", ["a", "a"], ["s"]),
             helper.make_node("SequenceAt", ["s", "p"], ["y"])]
    model = make_model(nodes, [("a", F, [2]), ("p", I64, [])], [("y", F, [2])])
    with pytest.raises(ONNXImportError, match="position must be known at import"):
        from_onnx(model)

"""topi.nn.deformable_conv2d_nchw against ONNX's reference DeformConv (offsets, mask, groups,
deformable groups, stride/padding/dilation) and its argument errors."""

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from topi_eval import evaluate

from ember import te, topi

F = TensorProto.FLOAT


def _reference(x, w, off, mask, strides, pads, dilations, groups, dgroups):
    names = ["x", "w", "off"] + (["", "mask"] if mask is not None else [])
    node = helper.make_node("DeformConv", names, ["y"], strides=strides, pads=pads, dilations=dilations,
                            group=groups, offset_group=dgroups, kernel_shape=list(w.shape[2:]))
    arrays = {"x": x, "w": w, "off": off, **({"mask": mask} if mask is not None else {})}
    graph = helper.make_graph([node], "d", [helper.make_tensor_value_info(k, F, v.shape) for k, v in arrays.items()],
                              [helper.make_tensor_value_info("y", F, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    return ReferenceEvaluator(model).run(None, arrays)[0]


@pytest.mark.parametrize("groups,dgroups,use_mask,stride,pad,dil", [
    (1, 1, False, 1, 0, 1), (1, 2, True, 1, 1, 1), (2, 1, False, 2, 1, 1), (2, 2, True, 1, 2, 2)])
def test_deformable_conv2d(groups, dgroups, use_mask, stride, pad, dil):
    rng = np.random.default_rng(0)
    n, c, h, w, oc, k = 2, 4, 6, 7, 6, 3
    oh = (h + 2 * pad - dil * (k - 1) - 1) // stride + 1
    ow = (w + 2 * pad - dil * (k - 1) - 1) // stride + 1
    x = rng.standard_normal((n, c, h, w)).astype("float32")
    wt = rng.standard_normal((oc, c // groups, k, k)).astype("float32")
    off = (rng.standard_normal((n, dgroups * 2 * k * k, oh, ow)) * 1.5).astype("float32")
    mask = rng.uniform(0, 1, (n, dgroups * k * k, oh, ow)).astype("float32") if use_mask else None
    X, W, O = (te.placeholder(a.shape, "float32", nm) for a, nm in ((x, "X"), (wt, "W"), (off, "O")))
    M = te.placeholder(mask.shape, "float32", "M") if use_mask else None
    out = topi.nn.deformable_conv2d_nchw(X, O, W, stride, (pad, pad), dil, dgroups, groups, mask=M)
    got = evaluate([X, O, W] + ([M] if use_mask else []), out, [x, off, wt] + ([mask] if use_mask else []),
                   backend="llvm")
    expected = _reference(x, wt, off, mask, [stride] * 2, [pad] * 4, [dil] * 2, groups, dgroups)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_deformable_conv2d_argument_errors():
    X = te.placeholder((1, 4, 5, 5), "float32", "X")
    W = te.placeholder((2, 3, 3, 3), "float32", "W")
    O = te.placeholder((1, 18, 3, 3), "float32", "O")
    with pytest.raises(ValueError, match="do not split into 1 groups"):
        topi.nn.deformable_conv2d_nchw(X, O, W, 1, 0, 1)
    W2 = te.placeholder((2, 4, 3, 3), "float32", "W2")
    with pytest.raises(ValueError, match="offset must have 36 channels"):
        topi.nn.deformable_conv2d_nchw(X, O, W2, 1, 0, 1, deformable_groups=2)

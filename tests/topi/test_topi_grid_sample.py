"""topi.image.grid_sample against ONNX's reference GridSample (2-D: every method, padding
mode and align_corners; 3-D: bilinear and nearest), PyTorch where the two agree, and its
argument errors."""

import numpy as np
import pytest
import torch
from topi_eval import evaluate

from ember import te, topi

RNG = np.random.default_rng(0)


def _run(x, grid_cl, method, padding, align):
    """grid_cl is PyTorch's channel-last grid; topi takes it channel-first."""
    rank = x.ndim
    grid_cf = np.ascontiguousarray(np.moveaxis(grid_cl, -1, 1))
    X = te.placeholder(x.shape, "float32", "X")
    G = te.placeholder(grid_cf.shape, "float32", "G")
    out = topi.image.grid_sample(X, G, method, "NCHW" if rank == 4 else "NCDHW", padding, align)
    return evaluate([X, G], out, [x, grid_cf], backend="llvm")


def _torch(x, grid_cl, method, padding, align):
    return torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(grid_cl), mode=method,
                                           padding_mode=padding, align_corners=align).numpy()


def _onnx(x, grid_cl, method, padding, align):
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(method, method)
    node = helper.make_node("GridSample", ["x", "g"], ["y"], mode=mode, padding_mode=padding,
                            align_corners=int(align))
    graph = helper.make_graph([node], "gs", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
                                             helper.make_tensor_value_info("g", TensorProto.FLOAT, grid_cl.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    return ReferenceEvaluator(model).run(None, {"x": x, "g": grid_cl})[0]


@pytest.mark.parametrize("method", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_2d(method, padding, align):
    x = RNG.standard_normal((2, 3, 5, 6)).astype("float32")
    grid = RNG.uniform(-1.4, 1.4, (2, 4, 7, 2)).astype("float32")  # some points outside the image
    got = _run(x, grid, method, padding, align)
    np.testing.assert_allclose(got, _onnx(x, grid, method, padding, align), rtol=1e-4, atol=1e-5)
    if method != "bicubic" or padding == "zeros":  # ONNX clamps/reflects bicubic coordinates, PyTorch taps
        np.testing.assert_allclose(got, _torch(x, grid, method, padding, align), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("method", ["nearest", "bilinear"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_3d(method, padding):
    x = RNG.standard_normal((1, 2, 3, 4, 5)).astype("float32")
    grid = RNG.uniform(-1.3, 1.3, (1, 2, 3, 4, 3)).astype("float32")
    got = _run(x, grid, method, padding, False)
    np.testing.assert_allclose(got, _onnx(x, grid, method, padding, False), rtol=1e-4, atol=1e-5)


def test_grid_sample_argument_errors():
    X = te.placeholder((1, 1, 4, 4), "float32", "X")
    G = te.placeholder((1, 2, 3, 3), "float32", "G")
    with pytest.raises(ValueError, match="method must be nearest, bilinear or bicubic"):
        topi.image.grid_sample(X, G, "area")
    with pytest.raises(ValueError, match="padding_mode must be zeros, border or reflection"):
        topi.image.grid_sample(X, G, padding_mode="wrap")
    with pytest.raises(ValueError, match="layout must be one of"):
        topi.image.grid_sample(X, G, layout="NHWC")
    with pytest.raises(ValueError, match=r"needs data of rank 5"):
        topi.image.grid_sample(X, G, layout="NCDHW")

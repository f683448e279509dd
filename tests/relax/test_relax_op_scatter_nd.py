"""relax.scatter_nd: struct-info inference, error messages, compiled kernel vs numpy."""

import numpy as np
import pytest

import ember as tvm
from ember import relax
from ember.relax.reference.ops_index_nd import INDEX_ND_IMPLS


def _build(data, idx, upd, reduction):
    bb = relax.BlockBuilder()
    d = relax.Var("d", relax.TensorStructInfo(data.shape, str(data.dtype)))
    i = relax.Var("i", relax.TensorStructInfo(idx.shape, str(idx.dtype)))
    u = relax.Var("u", relax.TensorStructInfo(upd.shape, str(upd.dtype)))
    with bb.function("main", [d, i, u]):
        out = bb.emit(relax.op.scatter_nd(d, i, u, reduction))
        bb.emit_func_output(out)
    return bb.get()


def _numpy_scatter_nd(data, idx, upd, reduction):
    return INDEX_ND_IMPLS["scatter_nd"]((data, idx, upd), relax.op.ScatterNDAttrs(reduction))


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "max", "min"])
@pytest.mark.parametrize("case", ["slices", "elements", "negative"])
def test_scatter_nd_matches_numpy(reduction, case):
    rng = np.random.default_rng(1)
    data = rng.standard_normal((4, 3, 5)).astype("float32")
    if case == "slices":
        idx = np.array([[0], [2], [0]], "int64")
        upd = rng.standard_normal((3, 3, 5)).astype("float32")
    elif case == "elements":
        idx = np.array([[[0, 1, 2], [3, 2, 4]], [[0, 1, 2], [1, 0, 0]]], "int32")
        upd = rng.standard_normal((2, 2)).astype("float32")
    else:
        idx = np.array([[-1, 0], [1, -3]], "int64")
        upd = rng.standard_normal((2, 5)).astype("float32")
    mod = _build(data, idx, upd, reduction)
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    got = vm["main"](tvm.nd.array(data), tvm.nd.array(idx), tvm.nd.array(upd)).numpy()
    wrapped = np.where(idx < 0, idx + np.array(data.shape[: idx.shape[-1]]), idx)
    np.testing.assert_allclose(got, _numpy_scatter_nd(data, wrapped, upd, reduction), rtol=1e-6)


def test_scatter_nd_struct_info():
    mod = _build(np.zeros((4, 3), "float32"), np.zeros((2, 1), "int64"), np.zeros((2, 3), "float32"), "add")
    assert mod["main"].ret_struct_info.dtype == "float32"
    assert [int(v) for v in mod["main"].ret_struct_info.shape.values] == [4, 3]


@pytest.mark.parametrize("shapes,reduction,message", [
    (((4, 3), (2, 1), (2, 3)), "mean", "reduction must be one of"),
    (((4, 3), (2, 3), (2,)), "update", "tuples of length 3"),
    (((4, 3), (2, 1), (2,)), "update", "updates must have rank 2"),
])
def test_scatter_nd_errors(shapes, reduction, message):
    d, i, u = shapes
    with pytest.raises((ValueError, TypeError), match=message):
        _build(np.zeros(d, "float32"), np.zeros(i, "int64"), np.zeros(u, "float32"), reduction)


def test_scatter_nd_rejects_float_indices():
    with pytest.raises(TypeError, match="indices must be an integer tensor"):
        _build(np.zeros((4,), "float32"), np.zeros((1, 1), "float32"), np.zeros((1,), "float32"), "update")

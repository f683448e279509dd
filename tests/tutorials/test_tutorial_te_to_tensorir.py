"""Tutorial: TE → TensorIR (``te.create_prim_func`` + ``tvm.tir.Schedule``), NDArray
spellings (``tvm.nd.array`` / ``tvm.runtime.tensor``) and DLPack to and from numpy/PyTorch."""

import numpy as np
import pytest

import ember as tvm
from ember import te


def _mm_relu_module() -> tvm.IRModule:
    A = te.placeholder((128, 128), name="A", dtype="float32")
    B = te.placeholder((128, 128), name="B", dtype="float32")
    k = te.reduce_axis((0, 128), "k")
    Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
    C = te.compute((128, 128), lambda i, j: te.max(Y[i, j], 0), name="C")
    func = te.create_prim_func([A, B, C]).with_attr("global_symbol", "mm_relu")
    return tvm.IRModule({"mm_relu": func})


def _reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum(a @ b, 0)


def test_create_prim_func_schedule_build(capsys):
    mod = _mm_relu_module()
    mod.show()
    assert 'T.block("Y")' in capsys.readouterr().out
    sch = tvm.tir.Schedule(mod)
    block = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, [None, 16])
    sch.reorder(i0, j, i1, k)
    sch.parallel(i0)
    rt = tvm.build(sch.mod, target="llvm")
    rng = np.random.default_rng(0)
    a = tvm.runtime.tensor(rng.random((128, 128)).astype("float32"))
    b = tvm.runtime.tensor(rng.random((128, 128)).astype("float32"))
    c = tvm.runtime.empty((128, 128), "float32")
    rt["mm_relu"](a, b, c)
    tvm.testing.assert_allclose(c.numpy(), _reference(a.numpy(), b.numpy()), rtol=1e-5)


def test_ndarray_basics():
    x = tvm.nd.array(np.arange(6, dtype="float32").reshape(2, 3), tvm.cpu(0))
    assert x.shape == (2, 3) and x.dtype == "float32" and x.device == tvm.cpu(0)
    assert tvm.cpu(0).exist
    y = x.copyto(tvm.cpu())
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    x.copyfrom(np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(x.numpy(), np.ones((2, 3)))


def test_dlpack_numpy_round_trip_shares_memory():
    arr = np.arange(12, dtype="float32").reshape(3, 4)
    x = tvm.nd.from_dlpack(arr)
    back = np.from_dlpack(x)
    back[0, 0] = 42
    assert arr[0, 0] == 42


def test_dlpack_torch_round_trip_and_call():
    torch = pytest.importorskip("torch")
    t = torch.rand(128, 128)
    x = tvm.nd.from_dlpack(t)
    assert torch.from_dlpack(x).data_ptr() == t.data_ptr()
    assert torch.utils.dlpack.from_dlpack(x.to_dlpack()).data_ptr() == t.data_ptr()
    assert tvm.nd.from_dlpack(torch.utils.dlpack.to_dlpack(t)).shape == (128, 128)
    out = torch.empty(128, 128)
    rt = tvm.build(_mm_relu_module(), target="llvm")
    rt["mm_relu"](x, tvm.nd.from_dlpack(t), tvm.nd.from_dlpack(out))
    expected = _reference(t.numpy(), t.numpy())
    tvm.testing.assert_allclose(out.numpy(), expected, rtol=1e-5)


def test_assert_allclose_reports_mismatch():
    with pytest.raises(AssertionError, match="Not equal to tolerance|Mismatch"):
        tvm.testing.assert_allclose(tvm.nd.array(np.ones(3, "float32")), np.zeros(3), rtol=1e-6)

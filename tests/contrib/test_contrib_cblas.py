"""ember.contrib.cblas: TE extern structure and the numpy-backed packed functions."""

import numpy as np
import pytest

import ember
from ember import te, tir
from ember.contrib import cblas


def _packed_call(tensor):
    body = tensor.op.body
    call = body.value if isinstance(body, tir.Evaluate) else body
    assert call.op.name == "tir.tvm_call_packed"
    return call


@pytest.mark.parametrize("transa,transb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_shape_and_packed_call(transa, transb):
    a = te.placeholder((3, 5) if not transa else (5, 3), name="A")
    b = te.placeholder((5, 7) if not transb else (7, 5), name="B")
    c = cblas.matmul(a, b, transa=transa, transb=transb)
    assert [int(d) for d in c.shape] == [3, 7]
    assert c.op.name == "C"
    call = _packed_call(c)
    assert call.args[0].value == "tvm.contrib.cblas.matmul"
    assert [bool(x.value) for x in call.args[-2:]] == [transa, transb]


def test_batch_matmul_shape():
    a = te.placeholder((2, 4, 3), name="A")
    b = te.placeholder((2, 6, 3), name="B")
    c = cblas.batch_matmul(a, b, transb=True)
    assert [int(d) for d in c.shape] == [2, 4, 6]
    assert _packed_call(c).args[0].value == "tvm.contrib.cblas.batch_matmul"


@pytest.mark.parametrize("transa,transb", [(False, False), (True, True)])
def test_registered_matmul_matches_numpy(transa, transb):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 3)).astype("float32")
    b = rng.standard_normal((3, 5)).astype("float32")
    lhs = a.T.copy() if transa else a
    rhs = b.T.copy() if transb else b
    out = ember.nd.array(np.zeros((4, 5), "float32"))
    ember.get_global_func("tvm.contrib.cblas.matmul")(
        ember.nd.array(lhs), ember.nd.array(rhs), out, transa, transb)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-5)


def test_registered_batch_matmul_matches_numpy():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 4, 3)).astype("float32")
    b = rng.standard_normal((2, 5, 3)).astype("float32")
    out = np.zeros((2, 4, 5), "float32")
    ember.get_global_func("tvm.contrib.cblas.batch_matmul")(a, b, out, False, True)
    np.testing.assert_allclose(out, a @ b.transpose(0, 2, 1), rtol=1e-5)


def test_emit_te_extern_makes_call_tir():
    from ember import relax

    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, m], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([m, n], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("f", [x, y]):
        out = bb.emit_te(cblas.matmul, x, y)
        bb.emit_func_output(out)
    call = bb.get()["f"].body.blocks[0].bindings[0].value
    assert call.args[0].name_hint == "matmul"
    assert list(call.sinfo_args[0].shape) == [n, n]

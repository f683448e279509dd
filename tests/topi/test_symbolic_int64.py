"""topi with int64 and symbolic shapes (what Relax legalization produces)."""

import numpy as np
import pytest

from ember import DataType, te, tir, topi
from ember.ir import IntImm
from ember.tir import interpreter

I64 = DataType("int64")


def i64(*dims):
    return tuple(IntImm(I64, d) for d in dims)


N = tir.SizeVar("n", "int64")
V = te.placeholder((N, IntImm(I64, 6)), name="V")
W = te.placeholder(i64(4, 6), name="W")

CASES = {
    "softmax": ([V], lambda: topi.nn.softmax(V), lambda v: np.exp(v) / np.exp(v).sum(1, keepdims=True)),
    "dense": ([V, W], lambda: topi.nn.dense(V, W), None),
    "reshape": ([V], lambda: topi.reshape(V, (N * 6,)), lambda v: v.reshape(-1)),
    "sum": ([V], lambda: topi.sum(V, axis=0), lambda v: v.sum(0)),
    "mean": ([V], lambda: topi.mean(V, axis=1), lambda v: v.mean(1)),
    "transpose": ([V], lambda: topi.transpose(V), lambda v: v.T),
    "concat": ([V], lambda: topi.concatenate([V, V], 0), lambda v: np.concatenate([v, v], 0)),
    "argmax": ([V], lambda: topi.argmax(V, axis=1), lambda v: v.argmax(1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_symbolic_rows(name):
    ins, make, ref = CASES[name]
    out = make()
    func = te.create_prim_func(ins + [out])
    rng = np.random.default_rng(0)
    arrays = [rng.random((3, 6) if t is V else (4, 6), dtype="float32") for t in ins]
    v = arrays[0]
    expected = ref(v) if ref is not None else v @ arrays[1].T
    got = np.zeros(expected.shape, out.dtype.numpy())
    interpreter.run(func, *arrays, got)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_int64_conv_and_pool():
    X = te.placeholder(i64(1, 2, 5, 5), name="X")
    K = te.placeholder(i64(3, 2, 3, 3), name="K")
    conv = topi.nn.conv2d(X, K, 2, 1, 1)
    pool = topi.nn.pool2d(X, (2, 2), (2, 2), (1, 1), (1, 1, 1, 1), "max")
    assert all(str(d.dtype) == "int64" for d in conv.shape + pool.shape)
    func = te.create_prim_func([X, K, conv, pool])
    rng = np.random.default_rng(1)
    x, k = rng.random((1, 2, 5, 5), dtype="float32"), rng.random((3, 2, 3, 3), dtype="float32")
    c, p = np.zeros((1, 3, 3, 3), "float32"), np.zeros((1, 2, 3, 3), "float32")
    interpreter.run(func, x, k, c, p)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.einsum("ncij,ocij->no", xp[:, :, 0:3, 0:3], k)
    np.testing.assert_allclose(c[:, :, 0, 0], ref, rtol=1e-5)
    np.testing.assert_allclose(p[0, :, 1, 1], x[0, :, 1:3, 1:3].max((1, 2)), rtol=1e-6)

"""Writing kernels directly in TVMScript the way TVM users do: scalar parameters,
``T.parallel`` / ``T.vectorized`` / ``T.unroll`` loops, local scratch with
``T.decl_buffer`` (which allocates when no ``data=`` is given), casts, selects and math."""

import numpy as np
import pytest

import ember as tvm
from ember.script import tir as T


@T.prim_func
def scale(a: T.handle, b: T.handle, n: T.int32, alpha: T.float32):
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in T.parallel(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] * alpha


@T.prim_func
def mixed(A: T.Buffer((64, 16), "float32"), B: T.Buffer((64, 16), "float16"),
          C: T.Buffer((64,), "int32"), D: T.Buffer((64, 16), "int8")):
    for i in T.parallel(64):
        acc = T.decl_buffer((1,), "int32", scope="local")
        acc[0] = 0
        for j in T.vectorized(16):
            B[i, j] = T.cast(T.exp(A[i, j]) * T.float32(0.5), "float16")
        for j in T.unroll(16):
            acc[0] = acc[0] + T.if_then_else(A[i, j] > T.float32(0), 1, 0)
            D[i, j] = T.Cast("int8", T.Select(A[i, j] > T.float32(0), T.float32(3), T.float32(-3)))
        C[i] = acc[0]


def test_scalar_parameters_and_argument_checks():
    f = tvm.build(scale, target="llvm")
    a = tvm.nd.array(np.arange(6, dtype="float32"))
    b = tvm.nd.empty((6,), "float32")
    f(a, b, 6, 2.5)
    np.testing.assert_allclose(b.numpy(), np.arange(6) * 2.5)
    with pytest.raises(Exception, match=r"argument 'A' \(#1\): expected shape\[0\] == n"):
        f(a, b, 5, 2.5)
    with pytest.raises(Exception, match="expected dtype float32, got float64"):
        f(a, tvm.nd.empty((6,), "float64"), 6, 2.5)
    with pytest.raises(Exception, match=r"expects 4 arguments \(A, B, n, alpha\), got 2"):
        f(a, b)


def test_decl_buffer_scratch_casts_and_selects():
    f = tvm.build(mixed, target="llvm")
    a = np.random.default_rng(0).standard_normal((64, 16)).astype("float32")
    b = tvm.nd.empty((64, 16), "float16")
    c = tvm.nd.empty((64,), "int32")
    d = tvm.nd.empty((64, 16), "int8")
    f(tvm.nd.array(a), b, c, d)
    np.testing.assert_allclose(b.numpy(), (np.exp(a) * 0.5).astype("float16"), rtol=1e-3)
    np.testing.assert_array_equal(c.numpy(), (a > 0).sum(1))
    np.testing.assert_array_equal(d.numpy(), np.where(a > 0, 3, -3))


def test_decl_buffer_prints_and_parses_back():
    text = mixed.script()
    assert 'acc = T.decl_buffer((1,), "int32", scope="local")' in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), mixed)

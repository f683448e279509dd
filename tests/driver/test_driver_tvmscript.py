"""TVMScript functions (parsed by ember.script) built with ember.build, as in TVM tutorials."""

import numpy as np
import pytest

import ember

T = pytest.importorskip("ember.script").tir


def test_match_buffer_symbolic_parallel():
    @T.prim_func
    def add_vec(a: T.handle, b: T.handle, c: T.handle):
        T.func_attr({"global_symbol": "add_vec", "tir.noalias": True})
        n = T.int32()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for i in T.parallel(n):
            with T.block("C"):
                vi = T.axis.spatial(n, i)
                C[vi] = A[vi] + B[vi]

    mod = ember.build(add_vec, target="llvm")
    assert mod.function_names == ["add_vec"]
    for n in (1, 7, 1000):
        a = np.random.default_rng(n).random(n).astype("float32")
        b = np.random.default_rng(n + 1).random(n).astype("float32")
        c = np.zeros(n, "float32")
        mod(a, b, c)
        np.testing.assert_array_equal(c, a + b)


def test_vectorized_loop_with_scalar_param():
    @T.prim_func
    def scale(A: T.Buffer((16,), "float32"), alpha: T.float32, B: T.Buffer((16,), "float32")):
        for i in T.vectorized(16):
            B[i] = A[i] * alpha

    mod = ember.build(scale, target="llvm")
    a = np.arange(16, dtype="float32")
    b = np.zeros(16, "float32")
    mod(a, 2.5, b)
    np.testing.assert_array_equal(b, a * 2.5)
    assert "x float>" in mod.get_source("ll")

"""PrimFunc.specialize: bind scalar parameters or a parameter buffer's shape."""

import numpy as np
import pytest

import ember
from ember import tir
from ember.ir import assert_structural_equal
from ember.script import tir as T


@T.prim_func
def scale(a: T.handle, b: T.handle, n: T.int32):
    m = T.int32()
    A = T.match_buffer(a, (m, n))
    B = T.match_buffer(b, (m, n))
    for i, j in T.grid(m, n):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def scale_4x8(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (4, 8))
    B = T.match_buffer(b, (4, 8))
    for i, j in T.grid(4, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


def test_specialize_by_buffer_binds_shape_vars_and_drops_bound_scalars():
    a = scale.params[0]
    func = scale.specialize({a: tir.decl_buffer((4, 8), "float32")})
    assert len(func.params) == 2  # n was bound by A's shape
    assert_structural_equal(func.with_attr("global_symbol", "x") if hasattr(func, "with_attr") else func,
                            scale_4x8.with_attr("global_symbol", "x") if hasattr(scale_4x8, "with_attr")
                            else scale_4x8)
    mod = ember.build(func, "llvm")
    x = ember.nd.array(np.ones((4, 8), "float32"))
    y = ember.nd.array(np.zeros((4, 8), "float32"))
    mod(x, y)
    np.testing.assert_allclose(y.numpy(), 2.0)


def test_specialize_scalar_and_nothing():
    n = scale.params[2]
    func = scale.specialize({n: 8})
    assert len(func.params) == 2
    assert int(func.buffer_map[func.params[0]].shape[1]) == 8
    assert scale.specialize({}) is scale


def test_specialize_unknown_parameter():
    with pytest.raises(ValueError, match="is not a parameter"):
        scale.specialize({tir.Var("z", "int32"): 1})

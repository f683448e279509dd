"""ForceNarrowIndexToInt32: int64 indices become int32, int64 data is refused, results match."""

import numpy as np
import pytest

import ember as tvm
from ember.script import tir as T
from ember.tir.transform._common import TransformError


def _narrow(func):
    return tvm.tir.transform.ForceNarrowIndexToInt32()(tvm.IRModule({"main": func}))["main"]


def test_int64_indices_become_int32_and_compute_the_same():
    @T.prim_func
    def shifted(A: T.Buffer((T.int64(8),), "float32"), B: T.Buffer((T.int64(8),), "float32"),
                n: T.int64):
        for i in T.serial(T.int64(4)):
            B[i] = A[i + n] + T.Cast("float32", i)

    after = _narrow(shifted)
    loop = after.body
    assert loop.loop_var.dtype == "int32" and loop.extent.dtype == "int32"
    assert after.params[-1].dtype == "int32"
    assert after.buffer_map[after.params[0]].shape[0].dtype == "int32"
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, dtype="float32")
    tvm.build(after, target="llvm")(a, b, 2)
    np.testing.assert_allclose(b[:4], a[2:6] + np.arange(4))


def test_int64_data_is_refused():
    @T.prim_func
    def int64_data(A: T.Buffer((4,), "int64")):
        for i in range(4):
            A[i] = T.int64(1)

    with pytest.raises(TransformError, match="holds int64 data"):
        _narrow(int64_data)


def test_clz_of_narrowed_operand_is_corrected():
    @T.prim_func
    def leading_zeros(B: T.Buffer((T.int64(4),), "int32")):
        for i in T.serial(T.int64(4)):
            B[i] = T.clz(i)

    after = _narrow(leading_zeros)
    store = after.body.body
    assert "T.clz(i) - 32 + 64" in after.script()
    assert store.value.dtype == "int32"

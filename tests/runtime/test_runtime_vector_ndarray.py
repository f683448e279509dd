"""NDArrays of vector dtypes (float32x4, int8x16) as TVM has them: each element holds all
lanes, numpy() gives the lanes as a last axis and copyfrom takes that form back."""

import numpy as np
import pytest

import ember as tvm
from ember.runtime import ndarray as nd


@pytest.mark.parametrize("shape", [(16,), (3, 5), (128, 130)])
def test_vector_array_round_trips_through_numpy(shape):
    arr = nd.empty(shape, "float32x4")
    assert (arr.shape, arr.dtype, arr.nbytes) == (shape, "float32x4", int(np.prod(shape)) * 16)
    assert (arr._dltensor.dtype.code, arr._dltensor.dtype.bits, arr._dltensor.dtype.lanes) == (2, 32, 4)
    data = np.arange(np.prod(shape) * 4, dtype="float32").reshape(shape + (4,))
    arr.copyfrom(data)
    np.testing.assert_array_equal(arr.numpy(), data)
    np.testing.assert_array_equal(np.asarray(arr), data)


def test_vector_copyfrom_checks_the_lanes_form():
    arr = nd.empty((4,), "int8x16")
    with pytest.raises(ValueError, match=r"takes a int8 array of shape \(4, 16\), got int8 \(4,\)"):
        arr.copyfrom(np.zeros(4, "int8"))
    with pytest.raises(ValueError, match="got float32"):
        arr.copyfrom(np.zeros((4, 16), "float32"))


def test_vector_array_copies_to_another():
    src = nd.empty((2, 2), "int32x2").copyfrom(np.arange(8, dtype="int32").reshape(2, 2, 2))
    dst = src.copyto(tvm.cpu())
    np.testing.assert_array_equal(dst.numpy(), np.arange(8).reshape(2, 2, 2))

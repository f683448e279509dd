"""DataType names TVM accepts beyond int/uint/float/bfloat16: "bfloat" (16 bits) and the
low-bit float formats (float8_e4m3fn, float8_e5m2, float4_e2m1fn, ...) with their DLPack
1.1 type codes, numpy storage through ml_dtypes, and NDArrays of them."""

import numpy as np
import pytest

import ember as tvm
from ember.runtime import DataType

ml_dtypes = pytest.importorskip("ml_dtypes")


def test_bfloat_means_bfloat16():
    assert DataType("bfloat") is DataType("bfloat16")
    assert (DataType("bfloat").type_code, DataType("bfloat").bits) == (4, 16)


@pytest.mark.parametrize("name, code, bits", [
    ("float8_e4m3fn", 10, 8), ("float8_e5m2", 12, 8), ("float8_e4m3fnuz", 11, 8), ("float4_e2m1fn", 17, 4),
])
def test_low_bit_float_codes_and_names(name, code, bits):
    dtype = DataType(name)
    assert (dtype.type_code, dtype.bits, dtype.lanes) == (code, bits, 1)
    assert str(dtype) == name and dtype.is_low_bit_float and not dtype.is_integer
    vector = DataType(name + "x4")
    assert (str(vector), vector.lanes, vector.element_of()) == (name + "x4", 4, dtype)
    assert dtype.numpy() == np.dtype(getattr(ml_dtypes, name))


def test_ndarray_of_float8_round_trips():
    data = np.array([0.5, -2.0, 448.0], dtype=ml_dtypes.float8_e4m3fn)
    arr = tvm.nd.array(data)
    assert arr.dtype == "float8_e4m3fn"
    assert arr._dltensor.dtype.code == 10
    np.testing.assert_array_equal(arr.numpy().astype("float32"), data.astype("float32"))
    assert tvm.nd.empty([2, 3], "float8_e5m2").numpy().dtype == np.dtype(ml_dtypes.float8_e5m2)


def test_unknown_low_bit_name_is_refused():
    with pytest.raises(ValueError, match="unknown data type 'float8_e9m9'"):
        DataType("float8_e9m9")

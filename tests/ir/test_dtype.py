"""DataType parsing, interning and conversions."""

import numpy as np
import pytest

from ember.ir import DataType


@pytest.mark.parametrize(
    "spec, code, bits, lanes",
    [
        ("float32", 2, 32, 1), ("float16", 2, 16, 1), ("float64", 2, 64, 1), ("int8", 0, 8, 1),
        ("int64", 0, 64, 1), ("uint8", 1, 8, 1), ("uint64", 1, 64, 1), ("bool", 6, 1, 1),
        ("handle", 3, 64, 1), ("bfloat16", 4, 16, 1), ("float32x4", 2, 32, 4), ("int8x16", 0, 8, 16),
    ],
)
def test_parse(spec, code, bits, lanes):
    t = DataType(spec)
    assert (t.code, t.bits, t.lanes) == (code, bits, lanes)
    assert str(t) == spec
    assert DataType(str(t)) is t


def test_interned_and_equal_to_strings():
    assert DataType("float32") is DataType("float")
    assert DataType("float32") == "float32"
    assert DataType("int32") != "int64"
    assert DataType("float32").with_lanes(8) is DataType("float32x8")
    assert DataType("float32x8").element_of() is DataType("float32")


def test_foreign_specs():
    assert DataType(np.float32) is DataType("float32")
    assert DataType(np.dtype("int16")) is DataType("int16")
    assert DataType(np.bool_) is DataType("bool")


def test_properties():
    assert DataType("int32").is_int and DataType("int32").is_integer
    assert DataType("uint8").is_uint and not DataType("uint8").is_int
    assert DataType("bfloat16").is_float
    assert DataType("bool").itemsize == 1
    assert DataType("float32x4").itemsize == 16
    assert DataType("float16").numpy() == np.float16


@pytest.mark.parametrize("bad, message", [
    ("float8", "float widths"), ("int7", "integer widths"), ("floaty", "unknown data type"),
    ("float", None), ("int", None),
])
def test_errors(bad, message):
    if message is None:
        DataType(bad)  # aliases are accepted
        return
    with pytest.raises(ValueError, match=message):
        DataType(bad)


def test_immutable():
    with pytest.raises(AttributeError):
        DataType("float32").bits = 16

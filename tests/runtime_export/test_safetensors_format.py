"""The safetensors layout used for parameters and embedded constants (no pickle)."""

import json

import numpy as np
import pytest

from ember.runtime import safetensors


def test_round_trip_all_dtypes():
    tensors = {name: (np.arange(6) % 3).astype(name).reshape(2, 3)
               for name in ("float32", "float64", "float16", "int8", "int32", "int64", "uint8", "bool")}
    out = safetensors.loads(safetensors.dumps(tensors, metadata={"format": "ember"}), with_metadata=True)
    arrays, meta = out
    assert meta == {"format": "ember"}
    for name, value in tensors.items():
        assert arrays[name].dtype == value.dtype
        np.testing.assert_array_equal(arrays[name], value)


def test_standard_layout_is_readable_by_hand():
    data = safetensors.dumps({"w": np.ones((2, 2), "float32")})
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    assert header["w"] == {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}
    assert (8 + size) % 8 == 0


def test_aligned_tensors():
    data = safetensors.dumps({"a": np.ones(3, "float32"), "b": np.ones(5, "int64")}, align=64)
    header, base = safetensors.read_header(data)
    assert base % 64 == 0
    assert all(entry["data_offsets"][0] % 64 == 0 for entry in header.values())
    np.testing.assert_array_equal(safetensors.loads(data)["b"], np.ones(5, "int64"))


def test_truncated_data_is_reported():
    data = safetensors.dumps({"w": np.ones((4, 4), "float32")})
    with pytest.raises(ValueError, match="truncated"):
        safetensors.loads(data[:-8])
    with pytest.raises(ValueError, match="truncated"):
        safetensors.loads(data[:4])
    with pytest.raises(ValueError, match="corrupt or truncated header"):
        safetensors.loads(data[:20])


def test_tampered_header_is_reported():
    data = bytearray(safetensors.dumps({"w": np.ones((4, 4), "float32")}))
    data[8] = ord("[")
    with pytest.raises(ValueError, match="not valid JSON"):
        safetensors.loads(bytes(data))
    bad = safetensors.dumps({"w": np.ones(4, "float32")}).replace(b'"shape":[4]', b'"shape":[5]')
    with pytest.raises(ValueError, match="does not match its byte range"):
        safetensors.loads(bad)


def test_unsupported_dtype_is_reported():
    with pytest.raises(TypeError, match="complex64, which cannot be stored"):
        safetensors.dumps({"z": np.ones(2, "complex64")})

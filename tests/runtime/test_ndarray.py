"""NDArray: constructors, dtypes, copies, errors."""

import ctypes
import re

import numpy as np
import pytest

from ember import nd, runtime

ALL_DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
]  # fmt: skip


def sample(dtype: str, shape=(3, 4)) -> np.ndarray:
    values = np.arange(int(np.prod(shape))).reshape(shape) % 7
    return (values % 2 == 1) if dtype == "bool" else values.astype(dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_round_trip(dtype):
    source = sample(dtype)
    a = nd.array(source)
    assert a.dtype == dtype
    assert a.shape == (3, 4)
    assert a.ndim == 2
    out = a.numpy()
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, source)


def test_bfloat16_round_trip():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    source = np.array([1.5, -2.0, 3.25], dtype=ml_dtypes.bfloat16)
    a = nd.array(source)
    assert a.dtype == "bfloat16"
    np.testing.assert_array_equal(a.numpy().astype("float32"), [1.5, -2.0, 3.25])
    assert runtime.empty((2,), "bfloat16").numpy().dtype == source.dtype


def test_array_from_list_and_scalar():
    assert nd.array([1.0, 2.0]).dtype == "float64"
    assert nd.array([1, 2]).dtype == "int64"
    assert nd.array([True, False]).dtype == "bool"
    scalar = nd.array(np.float32(2.5))
    assert scalar.shape == () and scalar.numpy() == np.float32(2.5)


def test_array_copies():
    source = np.zeros(4, "float32")
    a = nd.array(source)
    source[0] = 1
    assert a.numpy()[0] == 0
    b = nd.array(a)
    assert b.data_ptr != a.data_ptr


def test_tensor_is_array():
    t = runtime.tensor(np.arange(3, dtype="int32"), runtime.cpu())
    assert isinstance(t, runtime.NDArray) and t.device == runtime.cpu(0)
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2])


def test_empty():
    a = nd.empty((2, 3))
    assert a.shape == (2, 3) and a.dtype == "float32" and a.device == runtime.cpu(0)
    assert runtime.empty(5, "int8").shape == (5,)
    assert runtime.empty((), "float64").shape == ()
    assert runtime.empty((0, 3)).numpy().shape == (0, 3)
    assert runtime.empty((2,), "float32", "cpu").device == runtime.cpu(0)


@pytest.mark.parametrize("shape", [(1,), (3, 5), (7, 1, 3), (0,)])
def test_alignment(shape):
    assert nd.empty(shape).data_ptr % 64 == 0
    assert nd.array(np.ones(shape, "float16")).data_ptr % 64 == 0


def test_empty_errors():
    with pytest.raises(ValueError, match=r"negative dimensions, got \(2, -1\)"):
        nd.empty((2, -1))
    with pytest.raises(TypeError, match="shape must be an int or a sequence of ints"):
        nd.empty("abc")
    with pytest.raises(ValueError, match="unknown data type 'float13'"):
        nd.empty((2,), "float13")


def test_unsupported_element_type():
    with pytest.raises(TypeError, match="unsupported element type complex128"):
        nd.array(np.ones(2, complex))


def test_missing_device_is_a_clear_error():
    for dev in (runtime.metal(), runtime.vulkan()):
        with pytest.raises(RuntimeError, match=re.escape(f"device {dev} does not exist")):
            nd.empty((2,), "float32", dev)
    if not runtime.cuda().exist:
        with pytest.raises(RuntimeError, match=r"device cuda\(0\) does not exist"):
            nd.array(np.ones(2), runtime.cuda())


def test_numpy_is_a_copy():
    a = nd.array(np.zeros(3, "float32"))
    view = a.numpy()
    view[0] = 5
    assert a.numpy()[0] == 0


def test_copyfrom():
    a = nd.empty((2, 2), "float32")
    a.copyfrom(np.ones((2, 2), "float32"))
    assert a.numpy().sum() == 4
    a.copyfrom([[1, 2], [3, 4]])  # lists convert to the array's dtype
    assert a.numpy().tolist() == [[1, 2], [3, 4]]
    a.copyfrom(nd.array(np.full((2, 2), 7, "float32")))
    assert a.numpy()[1, 1] == 7
    a[:] = np.zeros((2, 2), "float32")
    assert a.numpy().sum() == 0


def test_copyfrom_errors():
    a = nd.empty((2, 2), "float32")
    with pytest.raises(ValueError, match=r"shape mismatch: this array has shape \(2, 2\), source has \(3,\)"):
        a.copyfrom(np.ones(3, "float32"))
    with pytest.raises(
        ValueError, match=r"dtype mismatch: this array is float32, source is float64.*astype\('float32'\)"
    ):
        a.copyfrom(np.ones((2, 2)))
    with pytest.raises(ValueError, match="dtype mismatch"):
        a.copyfrom(nd.empty((2, 2), "int32"))
    with pytest.raises(ValueError, match="whole-array assignment"):
        a[0] = 1


def test_copyto():
    a = nd.array(np.arange(4, dtype="int16"))
    b = a.copyto(runtime.cpu())
    assert b.data_ptr != a.data_ptr and b.numpy().tolist() == [0, 1, 2, 3]
    c = nd.empty((4,), "int16")
    assert a.copyto(c) is c and c.numpy().tolist() == [0, 1, 2, 3]
    with pytest.raises(TypeError, match="target must be a Device or an NDArray, got int"):
        a.copyto(3)
    with pytest.raises(ValueError, match="shape mismatch"):
        a.copyto(nd.empty((5,), "int16"))


def test_repr_and_handle():
    a = nd.array(np.arange(3, dtype="float32"))
    text = repr(a)
    assert text.startswith("<ember.nd.NDArray shape=(3,), dtype=float32, cpu(0)>")
    assert "array([0., 1., 2.], dtype=float32)" in text
    t = a.handle.contents
    assert t.ndim == 1 and t.shape[0] == 3 and t.dtype.code == 2 and t.dtype.bits == 32
    assert t.device.device_type == 1 and not t.strides
    assert ctypes.addressof(t) == a._dltensor_addr


def test_dltensor_fields_for_bool():
    t = nd.array(np.array([True, False])).handle.contents
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (6, 8, 1)


def test_array_protocol_shares_memory():
    a = nd.array(np.zeros(3, "float32"))
    view = np.asarray(a)
    view[1] = 9
    assert a.numpy()[1] == 9
    assert np.array(a, copy=True).ctypes.data != a.data_ptr


def test_nd_module_names():
    assert nd.NDArray is runtime.NDArray
    assert nd.array is runtime.array and nd.empty is runtime.empty and nd.from_dlpack is runtime.from_dlpack

"""DLPack: zero-copy exchange with numpy and torch, in both directions."""

import gc
import weakref

import numpy as np
import pytest

from ember import nd, runtime
from ember.runtime import dlpack


def test_numpy_from_ndarray_shares_memory():
    a = nd.array(np.zeros((2, 3), "float32"))
    view = np.from_dlpack(a)
    view[1, 2] = 5
    assert a.numpy()[1, 2] == 5
    assert view.ctypes.data == a.data_ptr


def test_ndarray_from_numpy_shares_memory():
    source = np.zeros(4, "int32")
    a = nd.from_dlpack(source)
    np.from_dlpack(a)[0] = 3
    assert source[0] == 3
    assert a.data_ptr == source.ctypes.data


def test_numpy_capsule_import():
    source = np.arange(5, dtype="float64")
    a = runtime.from_dlpack(source.__dlpack__())
    assert a.dtype == "float64" and a.shape == (5,)
    assert a.data_ptr == source.ctypes.data


def test_capsule_can_be_consumed_once():
    capsule = np.arange(3).__dlpack__()
    nd.from_dlpack(capsule)
    with pytest.raises(BufferError, match="can be consumed only once"):
        nd.from_dlpack(capsule)


def test_strided_numpy_keeps_strides():
    source = np.arange(12, dtype="float32").reshape(3, 4).T
    a = nd.from_dlpack(source)
    assert a.strides == (1, 4)
    np.testing.assert_array_equal(a.numpy(), source)
    np.testing.assert_array_equal(np.from_dlpack(a), source)


def test_dlpack_device():
    assert nd.empty((1,)).__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float16", "float32", "float64"])
def test_numpy_round_trip_dtypes(dtype):
    a = nd.array(np.ones(3, dtype))
    assert np.from_dlpack(a).dtype == np.dtype(dtype)


def test_export_lifetime():
    a = nd.array(np.arange(4, dtype="float32"))
    alive = weakref.ref(a)
    before = len(dlpack._exported)
    view = np.from_dlpack(a)
    del a
    gc.collect()
    assert alive() is not None  # the consumer keeps the producer alive
    assert view.tolist() == [0, 1, 2, 3]
    del view
    gc.collect()
    assert alive() is None
    assert len(dlpack._exported) == before


def test_unconsumed_capsule_releases_producer():
    a = nd.empty((2,))
    before = len(dlpack._exported)
    capsule = a.__dlpack__()
    assert len(dlpack._exported) == before + 1
    del capsule
    gc.collect()
    assert len(dlpack._exported) == before


def test_legacy_and_versioned_capsules():
    a = nd.empty((2,))
    assert "dltensor" in repr(a.__dlpack__())
    assert "dltensor_versioned" in repr(a.__dlpack__(max_version=(1, 0)))
    assert "dltensor" in repr(a.to_dlpack())


def test_export_copy_and_wrong_device():
    a = nd.array(np.zeros(2, "float32"))
    copied = np.from_dlpack(a, copy=True)
    copied[0] = 1
    assert a.numpy()[0] == 0
    with pytest.raises(BufferError, match="cannot export cpu"):
        a.__dlpack__(dl_device=(2, 0))


def test_from_dlpack_rejects_other_objects():
    with pytest.raises(TypeError, match="expected an object with __dlpack__ or a DLPack capsule, got list"):
        nd.from_dlpack([1, 2])


# -- torch --------------------------------------------------------------------------------------


def test_torch_from_ndarray_shares_memory():
    torch = pytest.importorskip("torch")
    a = nd.array(np.zeros(3, "float32"))
    t = torch.from_dlpack(a)
    t[2] = 4.0
    assert a.numpy()[2] == 4
    assert t.data_ptr() == a.data_ptr


def test_ndarray_from_torch_shares_memory():
    torch = pytest.importorskip("torch")
    t = torch.zeros(2, 3, dtype=torch.float64)
    a = nd.from_dlpack(t)
    assert a.shape == (2, 3) and a.dtype == "float64"
    np.from_dlpack(a)[0, 1] = 2.5
    assert t[0, 1].item() == 2.5
    assert a.data_ptr == t.data_ptr()


def test_torch_lifetime():
    torch = pytest.importorskip("torch")
    t = torch.arange(4.0)
    alive = weakref.ref(t)
    a = nd.from_dlpack(t)
    del t
    gc.collect()
    assert a.numpy().tolist() == [0, 1, 2, 3]
    del a
    gc.collect()
    assert alive() is None


@pytest.mark.parametrize(
    "name", ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
)
def test_torch_dtypes_both_ways(name):
    torch = pytest.importorskip("torch")
    if name == "bfloat16":
        pytest.importorskip("ml_dtypes")
    t = torch.ones(3, dtype=getattr(torch, name))
    a = nd.from_dlpack(t)
    assert a.dtype == name
    back = torch.from_dlpack(a)
    assert back.dtype == t.dtype and back.data_ptr() == t.data_ptr()


def test_torch_non_contiguous_and_size_one_strides():
    torch = pytest.importorskip("torch")
    t = torch.arange(6.0).reshape(2, 3).t()
    a = nd.from_dlpack(t)
    assert a.strides == (1, 3)
    np.testing.assert_array_equal(a.numpy(), t.numpy())
    column = torch.zeros(4, 1)  # extent-1 dims may carry any stride: still compact
    assert nd.from_dlpack(column).is_contiguous


def test_nd_array_from_torch_copies():
    torch = pytest.importorskip("torch")
    t = torch.ones(2)
    a = nd.array(t)
    t[0] = 5
    assert a.numpy().tolist() == [1, 1]

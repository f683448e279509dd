"""The runtime's fast paths: array layouts, numpy/torch descriptors without an NDArray,
and the generated CompiledFunction call — each checked against the public, slow answer."""

import ctypes
import re
import sys

import numpy as np
import pytest
from native_kernels import add_one, axpy, buffer, build

from ember import nd, runtime
from ember.runtime import ArgumentError, CompiledFunction
from ember.runtime.arg_explain import TensorView
from ember.runtime.array_fields import (
    NUMPY_FIELDS_OK, fill_from_numpy, fill_from_torch, numpy_data_address, numpy_fields,
)

ADD_ONE = add_one()
AXPY = axpy()


def _slot(size=256):
    buf = (ctypes.c_char * size)()
    return buf, ctypes.addressof(buf)


# -- reading numpy's fields ----------------------------------------------------------------------


def test_numpy_layout_is_verified_on_cpython():
    if sys.implementation.name == "cpython":
        assert NUMPY_FIELDS_OK


@pytest.mark.parametrize("make", [
    lambda: np.arange(12, dtype="float32").reshape(3, 4),
    lambda: np.arange(12, dtype="int8").reshape(3, 4)[:, ::2],
    lambda: np.zeros((), "float64"),
    lambda: np.asfortranarray(np.ones((2, 5), "int32")),
])
def test_numpy_fields_match_the_public_answers(make):
    arr = make()
    assert numpy_data_address(arr) == arr.__array_interface__["data"][0]
    if NUMPY_FIELDS_OK:
        data, ndim, _, _, flags = numpy_fields(arr)
        assert (data, ndim, bool(flags & 1)) == (arr.ctypes.data, arr.ndim, arr.flags.c_contiguous)


def test_fill_from_numpy_contiguous_and_strided():
    buf, base = _slot()
    arr = np.arange(24, dtype="float32").reshape(4, 6)
    assert fill_from_numpy(buf, 0, base, arr, 8) == base
    view = TensorView.read(base)
    assert (view.shape, view.strides, view.dtype, view.data) == ((4, 6), None, "float32", arr.ctypes.data)
    strided = arr[:, 1::2]
    assert fill_from_numpy(buf, 0, base, strided, 8) == base
    view = TensorView.read(base)
    assert (view.shape, view.strides, view.data) == ((4, 3), (6, 2), strided.ctypes.data)


def test_fill_from_numpy_declines_what_it_cannot_describe():
    buf, base = _slot()
    assert fill_from_numpy(buf, 0, base, np.zeros(3, ">f4"), 8) is None  # non-native byte order
    assert fill_from_numpy(buf, 0, base, np.zeros(3, "complex64"), 8) is None
    assert fill_from_numpy(buf, 0, base, np.zeros((2,) * 9, "float32")[..., ::2], 8) is None  # no room
    odd = np.zeros(8, "uint8")[1:].view("int8")[:6].view(np.dtype([("a", "i1"), ("b", "i1")]))
    assert fill_from_numpy(buf, 0, base, odd, 8) is None


def test_fill_from_torch():
    torch = pytest.importorskip("torch")
    buf, base = _slot()
    t = torch.arange(12, dtype=torch.int16).reshape(3, 4).t()
    assert fill_from_torch(buf, 0, base, t, 8) == base
    view = TensorView.read(base)
    assert (view.shape, view.strides, view.dtype, view.data) == ((4, 3), (1, 4), "int16", t.data_ptr())
    assert fill_from_torch(buf, 0, base, torch.zeros(2, requires_grad=True), 8) is None
    assert fill_from_torch(buf, 0, base, torch.zeros(2, dtype=torch.complex64), 8) is None
    assert fill_from_torch(buf, 0, base, torch.zeros((1,) * 5), 8) is None  # shape + strides need 10 slots


# -- NDArray creation ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", runtime.DataType("float32"), np.dtype("float32"), np.float32, "float"])
def test_empty_accepts_every_dtype_spelling(dtype):
    a = nd.empty((2, 3), dtype)
    assert a.dtype == "float32" and a.shape == (2, 3) and a.numpy().dtype == np.float32
    t = a.handle.contents
    assert (t.ndim, t.shape[0], t.shape[1], t.dtype.bits) == (2, 2, 3, 32)


def test_empty_layout_cache_keeps_int_alias_apart_from_int64():
    assert nd.empty((2,), "int").dtype == "int32"
    assert nd.empty((2,), np.dtype("int64")).dtype == "int64"
    assert nd.empty((2,), "int").dtype == "int32"


def test_empty_shapes_in_other_forms():
    assert nd.empty([2, np.int64(3)]).shape == (2, 3)
    assert nd.empty(np.int32(4)).shape == (4,)
    with pytest.raises(TypeError, match="shape must be an int or a sequence of ints"):
        nd.empty(([2], 3))


@pytest.mark.parametrize("shape", [(3,), (64, 65), (300, 300)])  # small: one allocation; large: numpy
def test_empty_arrays_are_aligned_distinct_and_described(shape):
    a, b = nd.empty(shape, "float64"), nd.empty(shape, "float64")
    assert a.data_ptr % 64 == 0 and b.data_ptr % 64 == 0 and a.data_ptr != b.data_ptr
    assert a.numpy().ctypes.data != a.data_ptr  # numpy() copies
    assert np.asarray(a).ctypes.data == a.data_ptr
    view = TensorView.read(a._dltensor_addr)
    assert (view.shape, view.strides, view.data, view.dtype) == (shape, None, a.data_ptr, "float64")
    a.copyfrom(np.full(shape, 2.0))
    b.copyfrom(np.full(shape, 3.0))
    assert a.numpy().sum() == 2.0 * np.prod(shape)


def test_array_copies_numpy_input():
    src = np.arange(6, dtype="int32").reshape(2, 3)
    a = nd.array(src)
    src[0, 0] = 100
    assert a.numpy()[0, 0] == 0 and a.shape == (2, 3) and a.dtype == "int32"
    assert nd.array(np.arange(3, dtype=">i4")).numpy().tolist() == [0, 1, 2]
    assert nd.array(np.float32(2.5)).shape == ()
    assert nd.array(np.zeros((0, 2), "float32")).shape == (0, 2)


def test_from_dlpack_numpy_shares_memory():
    src = np.zeros((2, 3), "float32")
    a = nd.from_dlpack(src)
    src[1, 2] = 7
    assert a.numpy()[1, 2] == 7 and a.data_ptr == src.ctypes.data and a.strides is None
    b = nd.from_dlpack(src[:, ::2])
    assert b.strides == (3, 2)


def test_from_dlpack_torch_shares_memory_and_strides():
    torch = pytest.importorskip("torch")
    t = torch.zeros(2, 3)
    a = nd.from_dlpack(t)
    t[0, 1] = 4
    assert a.numpy()[0, 1] == 4 and a.data_ptr == t.data_ptr()
    assert nd.from_dlpack(t.t()).strides == (1, 3)
    assert nd.from_dlpack(torch.ones(2, dtype=torch.bfloat16)).dtype == "bfloat16"  # through DLPack
    with pytest.raises(Exception, match="require.*grad"):
        nd.from_dlpack(torch.zeros(2, requires_grad=True))


# -- CompiledFunction's generated call -----------------------------------------------------------


def test_generated_call_class_is_still_a_compiled_function():
    assert isinstance(ADD_ONE, CompiledFunction) and type(ADD_ONE).__name__ == "CompiledFunction"
    assert re.match(r"<CompiledFunction add_one\(A, B\) at 0x", repr(ADD_ONE))


def test_numpy_with_more_dims_than_the_pooled_room_is_explained():
    deep = np.zeros((1,) * 9 + (4,), "float32")[..., ::2]
    with pytest.raises(ArgumentError, match=re.escape("add_one: argument 'A' (#1): expected ndim 1, got 10")):
        ADD_ONE(deep, np.zeros(2, "float32"))


def test_mixed_array_kinds_in_one_call():
    torch = pytest.importorskip("torch")
    x = torch.ones(4, dtype=torch.float64)
    y = np.arange(4.0)
    AXPY(4, 2.0, x, y)
    np.testing.assert_array_equal(y, [2, 3, 4, 5])
    AXPY(np.int64(4), True, nd.array(np.ones(4)), y)  # numpy int, bool for a float
    np.testing.assert_array_equal(y, [3, 4, 5, 6])


def test_scalar_conversion_errors_still_name_the_argument():
    with pytest.raises(runtime.ArgumentTypeError, match=re.escape("axpy: argument 'alpha' (#2): expected a float, got NoneType")):
        AXPY(4, None, np.ones(4), np.ones(4))
    with pytest.raises(runtime.ArgumentTypeError, match=re.escape("axpy: argument 'n' (#1): expected an int, got str")):
        AXPY("4", 1.0, np.ones(4), np.ones(4))


def test_uint64_range_ints_are_passed_as_their_bits():
    echo = build("echo_n", [runtime.ParamInfo("n", "int", "uint64")], "  ret i32 0")
    echo((1 << 64) - 1)  # accepted for a uint64 (the bits of -1)
    with pytest.raises(runtime.ArgumentTypeError, match="does not fit in 64 bits"):
        echo(1 << 64)
    signed = build("echo_s", [runtime.ParamInfo("n", "int", "int64")], "  ret i32 0")
    with pytest.raises(runtime.ArgumentError, match=r"expected a value of dtype int64 in \[-9223372036854775808, "
                                                    r"9223372036854775807\], got 18446744073709551615"):
        signed((1 << 64) - 1)  # an int64 is not silently -1


def test_temporaries_of_slow_arguments_do_not_outlive_the_call():
    class Producer:
        """A DLPack producer that is not a numpy array or torch tensor: takes the slow path."""

        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, **kwargs):
            return self.arr.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    out = np.zeros(3, "float32")
    ADD_ONE(Producer(np.arange(3, dtype="float32")), out)
    assert out.tolist() == [1, 2, 3]
    assert all(not keep for _, _, keep in ADD_ONE._pool)


def test_handle_params():
    probe = build("probe", [runtime.ParamInfo("p", "handle", "handle")], "  ret i32 0")
    buf = (ctypes.c_char * 8)()
    for value in (None, 0, ctypes.addressof(buf), buf, ctypes.c_void_p(5), ctypes.pointer(ctypes.c_int(1))):
        probe(value)
    with pytest.raises(runtime.ArgumentTypeError, match="expected a pointer"):
        probe(1.5)


def test_explained_shape_comes_from_the_pooled_descriptor():
    fails = build("fails", [buffer("A", "float32", (4, 4))], "  ret i32 99")
    with pytest.raises(ArgumentError, match=re.escape("fails: argument 'A' (#1): expected shape[1] == 4, got 3")):
        fails(np.zeros((4, 3), "float32"))


def test_subclasses_keep_their_type_and_their_own_call():
    class Traced(CompiledFunction):
        __slots__ = ()

    class Custom(CompiledFunction):
        __slots__ = ()

        def __call__(self, *args):
            return "custom"

    traced = Traced(ADD_ONE.address, ADD_ONE.info, ADD_ONE)
    out = np.zeros(2, "float32")
    traced(np.ones(2, "float32"), out)
    assert isinstance(traced, Traced) and out.tolist() == [2, 2]
    assert Custom(ADD_ONE.address, ADD_ONE.info, ADD_ONE)() == "custom"

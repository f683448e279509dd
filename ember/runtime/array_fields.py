"""Fast DLTensor descriptors for numpy arrays and PyTorch tensors, without an NDArray.

Calling compiled code with a numpy array needs a ``DLTensor`` describing it.  The
obvious ways to read a numpy array's address (``arr.ctypes.data``,
``arr.__array_interface__``) cost microseconds each, more than the call itself; this
module reads the array's C-level fields (``PyArrayObject``: data, nd, dimensions,
strides, flags — a struct numpy documents as stable ABI) with one ``struct.unpack_from``
over a memoryview of the process's memory, and writes the DLTensor with one
``pack_into``.  The layout is verified against numpy's public answers at import; if it
does not hold (another Python or numpy build), ``NUMPY_FIELDS_OK`` is False and callers
use the public, slower path.

Also here: the DLTensor byte layout, the per-(shape, dtype) ``Layout`` cache that
``ndarray.py`` builds arrays from, and the dtype tables (numpy dtype / torch dtype →
DLPack code, bits, lanes).
"""

from __future__ import annotations

import ctypes
import math
import struct
import sys
from typing import Any

import numpy as np

from . import dlpack
from .dtype import DataType

# DLTensor: data, device type, device id, ndim, dtype code/bits/lanes, shape*, strides*, byte_offset
DLTENSOR = struct.Struct("<QiiiBBHQQQ")
DLTENSOR_SIZE = DLTENSOR.size  # 48
CPU = 1
CUDA = 2
ALIGNMENT = 64  # bytes, for the data of arrays ember allocates
C_CONTIGUOUS = 0x1  # NPY_ARRAY_C_CONTIGUOUS

# The same first 40 bytes as five words: data, device (type | id << 32), ndim | dtype << 32
# (dtype = code | bits << 8 | lanes << 16), shape*, strides*; byte_offset stays 0.
DLTENSOR_WORDS = struct.Struct("<QQQQQ")
CPU_WORD = CPU

_DIMS: dict[int, struct.Struct] = {}


def dims_struct(ndim: int) -> struct.Struct:
    """The (cached) struct of ``ndim`` int64s."""
    found = _DIMS.get(ndim)
    if found is None:
        found = _DIMS[ndim] = struct.Struct(f"<{ndim}q")
    return found


# -- layouts: what every array of one (shape, dtype) shares -----------------------------------

_SMALL_BYTES = 16384  # arrays up to this size share one allocation with their descriptor
_LAYOUT_CACHE_SIZE = 4096


class Layout:
    """Shape, dtype and descriptor format of arrays of one (shape, dtype), computed once.

    ``pack`` writes a DLTensor followed by its shape in one ``pack_into``; ``head_type``
    is a ctypes buffer type for that, ``small_type`` one that also has room for the
    64-byte aligned data (None for arrays above ``_SMALL_BYTES``)."""

    __slots__ = ("shape", "dtype", "name", "np_dtype", "ndim", "nbytes", "code", "bits", "lanes",
                 "pack", "head_size", "head_type", "small_type")

    def __init__(self, shape: tuple[int, ...], dtype: DataType):
        if not isinstance(dtype.lanes, int):
            raise ValueError(f"empty: an array's dtype needs a fixed number of lanes, got {dtype}")
        self.shape, self.dtype, self.name, self.ndim = shape, dtype, str(dtype), len(shape)
        # a vector dtype (float32x4) is held as one opaque numpy item per element (see ndarray.numpy)
        self.np_dtype = dtype.numpy() if dtype.lanes == 1 else np.dtype(f"V{dtype.itemsize}")
        self.nbytes = math.prod(shape) * dtype.itemsize
        self.code, self.bits, self.lanes = dlpack.dl_dtype_of(dtype)
        self.pack = struct.Struct(DLTENSOR.format + f"{self.ndim}q")
        self.head_size = max(self.pack.size, DLTENSOR_SIZE + 8)
        self.head_type = ctypes.c_char * self.head_size
        small = self.nbytes <= _SMALL_BYTES
        self.small_type = ctypes.c_char * (self.head_size + ALIGNMENT + self.nbytes) if small else None


LAYOUTS: dict[tuple, Layout] = {}  # (shape, dtype as given: str or DataType) -> layout
NUMPY_LAYOUTS: dict[tuple, Layout] = {}  # (shape, numpy dtype) -> layout


def layout(shape: tuple[int, ...], dtype: DataType) -> Layout:
    key = (shape, dtype._str)
    found = LAYOUTS.get(key)
    if found is None:
        if len(LAYOUTS) >= _LAYOUT_CACHE_SIZE:
            LAYOUTS.clear()
        found = LAYOUTS[key] = Layout(shape, dtype)
    return found


def remember_numpy_layout(shape: tuple, np_dtype: np.dtype, dtype: DataType) -> None:
    """Let ``array``/``from_dlpack`` find the layout of numpy arrays like this one directly."""
    if dtype.lanes != 1 or not np_dtype.isnative or np_dtype != dtype.numpy():
        return
    if len(NUMPY_LAYOUTS) >= _LAYOUT_CACHE_SIZE:
        NUMPY_LAYOUTS.clear()
    NUMPY_LAYOUTS[(shape, np_dtype)] = layout(shape, dtype)


# -- dtype tables ------------------------------------------------------------------------------

_NUMPY_DL: dict[np.dtype, tuple[int, int, int]] = {}  # native-order numpy dtype -> (code, bits, lanes)


def numpy_dl_dtype(np_dtype: np.dtype) -> tuple[int, int, int] | None:
    """(code, bits, lanes) of a numpy dtype, or None when DLPack cannot describe it."""
    found = _NUMPY_DL.get(np_dtype)
    if found is None:
        if not np_dtype.isnative:
            return None
        try:
            found = dlpack.dl_dtype_of(DataType(np_dtype))
        except (ValueError, TypeError):
            return None
        _NUMPY_DL[np_dtype] = found
    return found


NUMPY_DTYPE_WORD: dict[np.dtype, int] = {}  # native numpy dtype -> its DLPack dtype << 32


def numpy_dtype_word(np_dtype: np.dtype) -> int | None:
    """The DLPack dtype of a numpy dtype as the high half of DLTENSOR_WORDS' third word."""
    found = NUMPY_DTYPE_WORD.get(np_dtype)
    if found is None:
        dl = numpy_dl_dtype(np_dtype)
        if dl is None:
            return None
        found = NUMPY_DTYPE_WORD[np_dtype] = (dl[0] | dl[1] << 8 | dl[2] << 16) << 32
    return found


_TORCH_DL: dict[Any, tuple[int, int, int] | None] = {}


def torch_dl_dtype(torch_dtype: Any) -> tuple[int, int, int] | None:
    """(code, bits, lanes) of a torch dtype, or None for ones ember has no DataType for."""
    try:
        return _TORCH_DL[torch_dtype]
    except KeyError:
        pass
    try:
        found = dlpack.dl_dtype_of(DataType(str(torch_dtype).rsplit(".", 1)[-1]))
    except (ValueError, TypeError):
        found = None
    _TORCH_DL[torch_dtype] = found
    return found


# -- reading numpy's PyArrayObject -----------------------------------------------------------

# PyObject header (refcount, type) then: char *data; int nd; npy_intp *dimensions, *strides;
# PyObject *base, *descr; int flags.
_HEADER = 2 * ctypes.sizeof(ctypes.c_void_p)
ARRAY_FIELDS = struct.Struct(f"<{_HEADER}xQi4xQQ16xi")
_ARRAY_FIELDS = ARRAY_FIELDS
try:  # the process's memory as one byte buffer, for unpack_from at an object's address
    MEMORY = memoryview((ctypes.c_char * (sys.maxsize // 2)).from_address(0)).cast("B")
except (OverflowError, ValueError, TypeError, MemoryError):  # pragma: no cover - exotic builds
    MEMORY = memoryview(b"")


def numpy_fields(arr: np.ndarray) -> tuple[int, int, int, int, int]:
    """(data address, ndim, address of the int64 dims, address of the byte strides, flags).

    Only for exact ``np.ndarray`` instances (``type(arr) is np.ndarray``), which the
    caller keeps alive while it uses the addresses."""
    return _ARRAY_FIELDS.unpack_from(MEMORY, id(arr))


def numpy_data_address(arr: np.ndarray) -> int:
    """Address of ``arr``'s first element."""
    if NUMPY_FIELDS_OK:
        return _ARRAY_FIELDS.unpack_from(MEMORY, id(arr))[0]
    return arr.__array_interface__["data"][0]


def _layout_holds() -> bool:
    """Whether numpy_fields reads what numpy's public API reports, on a few sample arrays."""
    if ctypes.sizeof(ctypes.c_void_p) != 8 or np.dtype(np.intp).itemsize != 8:
        return False
    base = np.arange(24, dtype="float32").reshape(2, 3, 4)
    samples = (base, base[:, 1:, ::2], np.zeros((), "int8"), np.ones(5, "float64")[::-1])
    try:
        for arr in samples:
            data, nd, dims, strides, flags = _ARRAY_FIELDS.unpack_from(MEMORY, id(arr))
            if (data, nd) != (arr.__array_interface__["data"][0], arr.ndim):
                return False
            if nd and (dims_struct(nd).unpack_from(MEMORY, dims) != arr.shape
                       or dims_struct(nd).unpack_from(MEMORY, strides) != arr.strides):
                return False
            if bool(flags & C_CONTIGUOUS) != arr.flags.c_contiguous:
                return False
    except Exception:
        return False
    return True


NUMPY_FIELDS_OK = _layout_holds()


# -- filling a DLTensor in place ---------------------------------------------------------------


def fill_from_numpy(buf, offset: int, address: int, arr: np.ndarray, room: int) -> int | None:
    """Describe ``arr`` in the DLTensor at ``buf[offset:]`` (``address`` = its address), whose
    strides area (right after the 48-byte header) has ``room`` int64 slots.  The shape
    pointer is numpy's own dims array.  Returns ``address``, or None when the fast path
    does not apply (unsupported dtype, strides that need more room or are not whole
    elements): the caller then takes the general path."""
    word = NUMPY_DTYPE_WORD.get(arr.dtype) or numpy_dtype_word(arr.dtype)
    if word is None or not NUMPY_FIELDS_OK:
        return None
    data, nd, dims, strides, flags = _ARRAY_FIELDS.unpack_from(MEMORY, id(arr))
    if flags & C_CONTIGUOUS:
        DLTENSOR_WORDS.pack_into(buf, offset, data, CPU_WORD, nd | word, dims, 0)
        return address
    if nd > room:
        return None
    itemsize = arr.dtype.itemsize
    byte_strides = arr.strides
    if any(s % itemsize for s in byte_strides):
        return None
    strides_at = offset + DLTENSOR_SIZE
    dims_struct(nd).pack_into(buf, strides_at, *[s // itemsize for s in byte_strides])
    DLTENSOR_WORDS.pack_into(buf, offset, data, CPU_WORD, nd | word, dims, address + DLTENSOR_SIZE)
    return address


def fill_from_torch(buf, offset: int, address: int, tensor: Any, room: int) -> int | None:
    """Describe a cpu or cuda torch tensor like ``fill_from_numpy`` (shape and strides are
    written into the area after the header, which needs ``2 * ndim <= room`` slots).
    Returns None for tensors DLPack export would refuse or treat specially (requiring
    grad, other devices, unknown dtypes), which then take the general DLPack path."""
    word = _TORCH_WORD.get(tensor.dtype)
    if word is None:
        dl = torch_dl_dtype(tensor.dtype)
        if dl is None:
            return None
        word = _TORCH_WORD[tensor.dtype] = (dl[0] | dl[1] << 8 | dl[2] << 16) << 32
    if tensor.requires_grad:
        return None
    if tensor.is_cpu:
        device = CPU_WORD
    elif tensor.is_cuda:
        device = CUDA | tensor.get_device() << 32
    else:
        return None
    shape = tensor.shape
    nd = len(shape)
    if 2 * nd > room:
        return None
    head = _TORCH_HEADS.get(nd)
    if head is None:  # the five header words, byte_offset (0), then the shape
        head = _TORCH_HEADS[nd] = struct.Struct(f"<QQQQQ8x{nd}q")
    shape_ptr = address + DLTENSOR_SIZE
    if tensor.is_contiguous():
        head.pack_into(buf, offset, tensor.data_ptr(), device, nd | word, shape_ptr, 0, *shape)
    else:
        head.pack_into(buf, offset, tensor.data_ptr(), device, nd | word, shape_ptr, shape_ptr + 8 * nd, *shape)
        dims_struct(nd).pack_into(buf, offset + DLTENSOR_SIZE + 8 * nd, *tensor.stride())
    return address


_TORCH_WORD: dict[Any, int] = {}  # torch dtype -> its DLPack dtype << 32 (as NUMPY_DTYPE_WORD)
_TORCH_HEADS: dict[int, struct.Struct] = {}

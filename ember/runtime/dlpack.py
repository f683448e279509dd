"""DLPack in ctypes: the C structures, dtype codes, and capsule export/import.

The structures follow dlpack.h (v1.x): ``DLTensor`` is what compiled functions receive
(see ``compiled_function.py``); ``DLManagedTensor`` and ``DLManagedTensorVersioned`` are
what travels inside a PyCapsule between libraries.  Export keeps the producing object
alive until the consumer calls the deleter (or the capsule dies unconsumed); import
renames the capsule to ``used_*`` and calls the producer's deleter when the returned
owner is garbage collected.
"""

from __future__ import annotations

import ctypes
from ctypes import POINTER, CFUNCTYPE, Structure, c_char_p, c_int32, c_int64, c_uint8, c_uint16
from ctypes import c_uint32, c_uint64, c_void_p
from typing import Any

from .dtype import BOOL, DataType


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    """48 bytes: data@0, device@8, ndim@16, dtype@20, shape@24, strides@32, byte_offset@40."""

    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


DLDeleter = CFUNCTYPE(None, c_void_p)


class DLManagedTensor(Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", DLDeleter)]


class DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", c_void_p),
        ("deleter", DLDeleter),
        ("flags", c_uint64),
        ("dl_tensor", DLTensor),
    ]


DLPACK_VERSION = (1, 1)
FLAG_READ_ONLY = 1


def is_compact(shape, strides) -> bool:
    """Row-major contiguous strides (in elements), ignoring extent-1 dims as DLPack allows."""
    expected = 1
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


# -- dtype codes ------------------------------------------------------------------------


def dl_dtype_of(dtype: DataType) -> tuple[int, int, int]:
    """The DLPack (code, bits, lanes) of a DataType; bool is stored as one byte (code 6, 8 bits)."""
    if dtype.code == BOOL:
        return BOOL, 8, dtype.lanes
    return dtype.code, dtype.bits, dtype.lanes


def dtype_from_dl(code: int, bits: int, lanes: int) -> DataType:
    """The DataType of a DLPack (code, bits, lanes); raises BufferError for unsupported ones."""
    if code == BOOL and bits == 8:
        return DataType.make(BOOL, 1, lanes)
    base = _DL_CODE_NAMES.get(code)
    text = f"{base}{bits}" + (f"x{lanes}" if lanes > 1 else "")
    try:
        if base is None:
            raise ValueError(text)
        return DataType(text)
    except ValueError as err:
        raise BufferError(f"unsupported DLPack dtype (code={code}, bits={bits}, lanes={lanes})") from err


_DL_CODE_NAMES = {0: "int", 1: "uint", 2: "float", 4: "bfloat"}


# -- capsule helpers (CPython C API through ctypes.pythonapi: the GIL stays held) -------

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [c_void_p, c_char_p, c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, c_char_p]
_api.PyCapsule_GetPointer.restype = c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, c_char_p]
# The destructor gets a borrowed PyObject*; these variants take it as a raw pointer.
_capsule_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, c_void_p, c_char_p)(("PyCapsule_IsValid", _api))
_capsule_pointer_raw = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_char_p)(("PyCapsule_GetPointer", _api))

# Names must outlive every capsule: module-level bytes constants do.
_LEGACY, _VERSIONED = b"dltensor", b"dltensor_versioned"
_USED = {_LEGACY: b"used_dltensor", _VERSIONED: b"used_dltensor_versioned"}

# Managed-tensor address -> everything the exported struct points into (struct, shape,
# strides, producing object).  The deleter removes the entry.
_exported: dict[int, tuple] = {}


@DLDeleter
def _export_deleter(address):
    try:
        _exported.pop(address, None)
    except Exception:  # interpreter shutdown: nothing left to free
        pass


@CFUNCTYPE(None, c_void_p)
def _capsule_destructor(capsule):
    """Free an exported tensor whose capsule was never consumed (its name is unchanged)."""
    try:
        for name in (_VERSIONED, _LEGACY):
            if _capsule_is_valid_raw(capsule, name):
                _export_deleter(_capsule_pointer_raw(capsule, name))
                return
    except Exception:
        pass


_DESTRUCTOR_ADDR = ctypes.cast(_capsule_destructor, c_void_p).value


def export_capsule(tensor: DLTensor, owner: Any, versioned: bool, read_only: bool = False):
    """A DLPack capsule describing ``tensor``; ``owner`` stays alive until it is released.

    The shape/strides arrays are copied into the managed struct's keep-alive entry, so the
    capsule does not depend on ``tensor`` itself.
    """
    ndim = tensor.ndim
    shape = (c_int64 * max(ndim, 1))(*tensor.shape[:ndim])
    strides = (c_int64 * max(ndim, 1))(*tensor.strides[:ndim]) if tensor.strides else None
    if versioned:
        managed = DLManagedTensorVersioned()
        managed.version = DLPackVersion(*DLPACK_VERSION)
        managed.flags = FLAG_READ_ONLY if read_only else 0
        name = _VERSIONED
    else:
        managed = DLManagedTensor()
        name = _LEGACY
    dl = managed.dl_tensor
    dl.data, dl.device, dl.ndim, dl.dtype = tensor.data, tensor.device, ndim, tensor.dtype
    dl.byte_offset = tensor.byte_offset
    dl.shape = ctypes.cast(shape, POINTER(c_int64))
    dl.strides = ctypes.cast(strides, POINTER(c_int64)) if strides is not None else None
    managed.deleter = _export_deleter
    address = ctypes.addressof(managed)
    _exported[address] = (managed, shape, strides, owner)
    return _api.PyCapsule_New(address, name, _DESTRUCTOR_ADDR)


class ImportedTensor:
    """Owns a consumed DLPack managed tensor and calls its deleter when collected."""

    __slots__ = ("address", "tensor", "read_only", "_deleter", "__weakref__")

    def __init__(self, address: int, versioned: bool):
        cls = DLManagedTensorVersioned if versioned else DLManagedTensor
        managed = cls.from_address(address)
        self.address = address
        self.tensor: DLTensor = managed.dl_tensor
        self.read_only = bool(versioned and managed.flags & FLAG_READ_ONLY)
        self._deleter = managed.deleter if managed.deleter else None
        if versioned and managed.version.major != DLPACK_VERSION[0]:
            major = managed.version.major
            self.release()
            raise BufferError(f"DLPack major version {major} is not supported (expected {DLPACK_VERSION[0]})")

    def release(self) -> None:
        deleter, self._deleter = self._deleter, None
        if deleter is not None:
            deleter(self.address)

    def __del__(self):
        try:
            self.release()
        except Exception:
            pass


def consume_capsule(capsule) -> ImportedTensor:
    """Take ownership of the tensor in an unused ``dltensor``/``dltensor_versioned`` capsule."""
    for name, versioned in ((_VERSIONED, True), (_LEGACY, False)):
        if _api.PyCapsule_IsValid(capsule, name):
            address = _api.PyCapsule_GetPointer(capsule, name)
            _api.PyCapsule_SetName(capsule, _USED[name])
            return ImportedTensor(address, versioned)
    raise BufferError(
        f"expected an unused DLPack capsule named 'dltensor' or 'dltensor_versioned', got {capsule!r} "
        "(a capsule can be consumed only once)"
    )


def is_capsule(obj: Any) -> bool:
    return type(obj).__name__ == "PyCapsule"


def import_dlpack(obj: Any) -> ImportedTensor:
    """Take the tensor of a DLPack capsule or of an object with ``__dlpack__`` (asking for
    a versioned capsule, falling back to legacy for producers that do not accept one)."""
    if is_capsule(obj):
        return consume_capsule(obj)
    export = getattr(obj, "__dlpack__", None)
    if export is None:
        raise TypeError(f"expected an object with __dlpack__ or a DLPack capsule, got {type(obj).__name__}")
    try:
        capsule = export(max_version=DLPACK_VERSION)
    except TypeError:
        capsule = export()
    return consume_capsule(capsule)

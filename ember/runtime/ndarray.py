"""NDArray: an n-dimensional array on a device, with DLPack in and out.

CPU arrays are backed by a numpy array (64-byte aligned when ember allocates them);
arrays on other devices hold a pointer from the device's ``DeviceAPI``.  Every NDArray
builds its ``DLTensor`` once, at construction, and exposes its address as
``_dltensor_addr`` so compiled functions can be called without per-call marshalling.
"""

from __future__ import annotations

import ctypes
import functools
import math
from typing import Any
from collections.abc import Sequence

import numpy as np

from . import dlpack
from .array_fields import ALIGNMENT, C_CONTIGUOUS, DLTENSOR, DLTENSOR_SIZE, NUMPY_FIELDS_OK, dims_struct
from .array_fields import numpy_data_address, numpy_fields
from .array_fields import NUMPY_LAYOUTS as _NUMPY_LAYOUTS, LAYOUTS as _LAYOUTS, Layout as _Layout
from .array_fields import layout as _layout, remember_numpy_layout as _remember_numpy_layout
from .device import Device, DeviceType, cpu, device as as_device, load_device_backend
from .device_api import get_device_api
from .dtype import DataType

_HOST_TYPES = (DeviceType.CPU, DeviceType.CUDA_HOST, DeviceType.ROCM_HOST)
_CPU0 = cpu(0)


class NDArray:
    """An array on a device.  Build one with ``nd.array``, ``nd.empty`` or ``nd.from_dlpack``."""

    __slots__ = (
        "shape", "dtype", "device", "_dtype", "_np", "_owner",
        "_dlbuf", "_dltensor_addr", "__weakref__",
    )  # fmt: skip

    def __init__(
        self,
        data: int,
        shape: Sequence[int],
        dtype: DataType | str,
        device: Device,
        strides: Sequence[int] | None = None,
        owner: Any = None,
        np_view: np.ndarray | None = None,
    ):
        """Low-level: describe memory at ``data`` (strides in elements, None = compact)."""
        dtype = DataType(dtype)
        self.shape = shape = tuple(map(int, shape))
        self.dtype = str(dtype)
        self.device = device
        self._dtype = dtype
        self._np = np_view
        self._owner = owner
        if strides is not None and dlpack.is_compact(shape, strides):
            strides = None
        self._dlbuf = _pack_dltensor(data, shape, dtype, device, strides)
        self._dltensor_addr = ctypes.addressof(self._dlbuf)

    # -- properties ------------------------------------------------------------------------
    @property
    def _dltensor(self) -> dlpack.DLTensor:
        """This array's DLTensor as a ctypes structure (a view of its packed descriptor)."""
        return dlpack.DLTensor.from_buffer(self._dlbuf)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def strides(self) -> tuple[int, ...] | None:
        """Strides in elements, or None for a compact (row-major contiguous) array."""
        strides_ptr = self._dltensor.strides
        return tuple(strides_ptr[: self.ndim]) if strides_ptr else None

    @property
    def is_contiguous(self) -> bool:
        return not self._dltensor.strides

    @property
    def handle(self):
        """A ctypes pointer to this array's DLTensor."""
        return ctypes.pointer(self._dltensor)

    @property
    def data_ptr(self) -> int:
        """Address of the first element."""
        return self._dltensor.data or 0

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self._dtype.itemsize

    # -- conversion ------------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """A numpy copy of the contents (C-contiguous); a vector dtype (``float32x4``) gives its
        lanes as a last axis, as TVM does."""
        if self._dtype.lanes != 1:
            return _vector_numpy(self)
        if self._np is not None:
            return self._np.copy(order="C")
        out = np.empty(self.shape, self._dtype.numpy())
        if out.size:
            _device_copy(out.ctypes.data, cpu(0), self, self.device, self.nbytes, "numpy")
        return out

    asnumpy = numpy

    def __array__(self, dtype=None, copy=None):
        if self._np is None or copy or self._dtype.lanes != 1:
            out = self.numpy()
        else:
            out = self._np
        return out if dtype is None else out.astype(dtype, copy=False)

    def copyfrom(self, source: Any) -> NDArray:
        """Copy ``source`` (NDArray, numpy array, DLPack tensor, or nested list) into this array."""
        if not isinstance(source, NDArray):
            if isinstance(source, np.ndarray):
                pass
            elif hasattr(source, "__dlpack__"):
                source = from_dlpack(source)
            else:
                source = np.asarray(source, dtype=self._dtype.numpy())
        if self._dtype.lanes != 1 and isinstance(source, np.ndarray):
            source = _vector_items(self, source)
        if source.shape != self.shape:
            raise ValueError(
                f"copyfrom: shape mismatch: this array has shape {self.shape}, source has {tuple(source.shape)}"
            )
        if isinstance(source, NDArray):
            src_dtype = source.dtype
        elif self._dtype.lanes != 1:  # _vector_items checked the lanes' dtype
            src_dtype = self.dtype
        else:
            src_dtype = str(_numpy_dtype(source.dtype))
        if src_dtype != self.dtype:
            raise ValueError(
                f"copyfrom: dtype mismatch: this array is {self.dtype}, source is {src_dtype} "
                f"(convert first, e.g. with .astype('{self.dtype}'))"
            )
        if isinstance(source, NDArray) and source._np is not None:
            source = source._np
        if self._np is not None and isinstance(source, np.ndarray):
            np.copyto(self._np, source)
        elif isinstance(source, np.ndarray):
            host = np.ascontiguousarray(source)
            _device_copy(self, self.device, host.ctypes.data, cpu(0), self.nbytes, "copyfrom")
        else:
            _device_copy(self, self.device, source, source.device, self.nbytes, "copyfrom")
        return self

    def copyto(self, target: Device | NDArray | str) -> NDArray:
        """Copy into ``target``: an NDArray (returned), or a Device (a new array there)."""
        if isinstance(target, NDArray):
            return target.copyfrom(self)
        if isinstance(target, (Device, str)):
            return empty(self.shape, self.dtype, as_device(target)).copyfrom(self)
        raise TypeError(f"copyto: target must be a Device or an NDArray, got {type(target).__name__}")

    def __setitem__(self, key, value):
        if not (isinstance(key, slice) and key == slice(None)):
            raise ValueError("NDArray only supports whole-array assignment: arr[:] = value")
        self.copyfrom(value)

    # -- DLPack ----------------------------------------------------------------------------
    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device.to_dlpack()

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export as a DLPack capsule (versioned when the consumer allows 1.x), sharing memory."""
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"__dlpack__: cannot export {self.device} array to device {tuple(dl_device)}")
        if copy:
            return self.copyto(self.device).__dlpack__(max_version=max_version)
        if stream is not None and stream != -1 and self.device.device_type not in _HOST_TYPES:
            self.device.sync()
        versioned = max_version is not None and max_version[0] >= 1
        read_only = self._np is not None and not self._np.flags.writeable
        if read_only and not versioned:
            raise BufferError(
                "__dlpack__: cannot export a read-only array through legacy (unversioned) DLPack"
            )
        return dlpack.export_capsule(self._dltensor, self, versioned, read_only)

    def to_dlpack(self):
        """A legacy ``dltensor`` capsule (TVM's name)."""
        return self.__dlpack__()

    # -- printing --------------------------------------------------------------------------
    def __repr__(self) -> str:
        head = f"<ember.nd.NDArray shape={self.shape}, dtype={self.dtype}, {self.device}>"
        return head if self._np is None else f"{head}\n{self._np!r}"

    def __str__(self) -> str:
        return str(self._np) if self._np is not None else repr(self)


# -- constructors ----------------------------------------------------------------------------


def empty(
    shape: int | Sequence[int], dtype: str | DataType = "float32", device: Device | str = None, mem_scope=None
) -> NDArray:
    """An uninitialised array (64-byte aligned on cpu)."""
    try:
        layout = _LAYOUTS[shape, dtype]
    except (KeyError, TypeError):  # TypeError: an unhashable shape, reported by _check_shape
        layout = _layout(_check_shape(shape), DataType(dtype))
    if device is None:
        return _empty_cpu(layout, _CPU0)
    dev = as_device(device)
    if dev.device_type == DeviceType.CPU:
        return _empty_cpu(layout, dev)
    load_device_backend(dev.device_type)
    api = get_device_api(dev.device_type)
    if not dev.exist:
        why = getattr(api, "why_unavailable", None)
        reason = why(dev.device_id) if why is not None else None
        raise RuntimeError(f"empty: device {dev} does not exist on this machine" + (f": {reason}" if reason else ""))
    if api is None:
        raise RuntimeError(
            f"empty: no memory back end is registered for {dev.type_name} (see ember.runtime.device_api)"
        )
    data, owner = api.alloc(dev.device_id, layout.nbytes, ALIGNMENT)
    return NDArray(data, layout.shape, layout.dtype, dev, owner=owner)


def array(arr: Any, device: Device | str = None, mem_scope=None) -> NDArray:
    """A new array holding a copy of ``arr`` (numpy array, nested list, NDArray, DLPack tensor)."""
    if type(arr) is np.ndarray and device is None:
        layout = _NUMPY_LAYOUTS.get((arr.shape, arr.dtype))
        if layout is not None:
            out = _empty_cpu(layout, _CPU0)
            np.copyto(out._np, arr)
            return out
    if isinstance(arr, NDArray):
        source = arr
    elif isinstance(arr, np.ndarray):
        source = arr
    elif hasattr(arr, "__dlpack__"):
        source = from_dlpack(arr)
    else:
        source = np.asarray(arr)
    if isinstance(source, np.ndarray) and not source.dtype.isnative:
        source = source.astype(source.dtype.newbyteorder("="))
    try:
        dtype = DataType(source.dtype)
    except ValueError:
        raise TypeError(f"array: unsupported element type {source.dtype}") from None
    if isinstance(source, np.ndarray) and type(source.shape) is tuple:
        _remember_numpy_layout(source.shape, source.dtype, dtype)
    return empty(source.shape, dtype, device).copyfrom(source)


def tensor(data: Any, device: Device | str = None) -> NDArray:
    """A new array holding a copy of ``data`` (TVM's current name for ``nd.array``)."""
    return array(data, device)


def from_dlpack(obj: Any) -> NDArray:
    """Zero-copy view of ``obj``: any object with ``__dlpack__`` or an unused DLPack capsule."""
    if isinstance(obj, NDArray):
        return obj
    if isinstance(obj, np.ndarray):
        return _wrap_numpy(obj, _CPU0)
    view = _torch_cpu_view(obj)
    if view is not None:
        return _wrap_numpy(view, _CPU0)
    try:
        imported = dlpack.import_dlpack(obj)
    except TypeError as err:
        raise TypeError(f"from_dlpack: {err}") from None
    return _from_imported(imported)


def _torch_cpu_view(obj: Any) -> np.ndarray | None:
    """A numpy view sharing a plain cpu torch tensor's memory (``Tensor.numpy()``, which keeps
    the tensor alive), or None where DLPack must decide (other devices, tensors requiring
    grad, conjugated or with a dtype numpy lacks)."""
    cls = type(obj)
    if cls.__name__ != "Tensor" or cls.__module__ != "torch":
        return None
    if not obj.is_cpu or obj.requires_grad:
        return None
    try:
        return obj.numpy()
    except (TypeError, RuntimeError):
        return None


_new_object = object.__new__


def _assemble(layout: _Layout, device: Device, np_view, owner, dlbuf, address: int) -> NDArray:
    """An NDArray from ready parts (no checks: the callers built the parts)."""
    arr = _new_object(NDArray)
    arr.shape = layout.shape
    arr.dtype = layout.name
    arr.device = device
    arr._dtype = layout.dtype
    arr._np = np_view
    arr._owner = owner
    arr._dlbuf = dlbuf
    arr._dltensor_addr = address
    return arr


def _empty_cpu(layout: _Layout, dev: Device) -> NDArray:
    """A fresh aligned cpu array: small ones share one ctypes buffer with their DLTensor."""
    small = layout.small_type
    if small is not None:
        buf = small()
        base = ctypes.addressof(buf)
        offset = layout.head_size + (-(base + layout.head_size)) % ALIGNMENT
        view = np.ndarray(layout.shape, layout.np_dtype, buf, offset)
        data = base + offset
    else:
        raw = np.empty(layout.nbytes + ALIGNMENT, np.uint8)
        address = numpy_data_address(raw)
        start = (-address) % ALIGNMENT
        view = np.ndarray(layout.shape, layout.np_dtype, raw, start)
        data = address + start
        buf = layout.head_type()
        base = ctypes.addressof(buf)
    layout.pack.pack_into(buf, 0, data, dev.device_type, dev.device_id, layout.ndim, layout.code, layout.bits,
                          layout.lanes, base + DLTENSOR_SIZE, 0, 0, *layout.shape)
    return _assemble(layout, dev, view, None, buf, base)


# -- helpers -----------------------------------------------------------------------------------


def _check_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        dims = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise TypeError(f"shape must be an int or a sequence of ints, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"shape must not have negative dimensions, got {dims}")
    return dims


def _pack_dltensor(data: int, shape: tuple, dtype: DataType, device: Device, strides) -> ctypes.Array:
    """One buffer holding a DLTensor followed by its shape (and strides) arrays."""
    ndim = len(shape)
    dims = dims_struct(ndim)
    size = DLTENSOR_SIZE + dims.size * (1 if strides is None else 2)
    buf = (ctypes.c_char * max(size, DLTENSOR_SIZE + 8))()
    base = ctypes.addressof(buf)
    code, bits, lanes = _dl_dtype(dtype)
    shape_at = base + DLTENSOR_SIZE
    strides_at = 0 if strides is None else shape_at + dims.size
    DLTENSOR.pack_into(buf, 0, data or 0, device.device_type, device.device_id, ndim, code, bits,
                       lanes, shape_at, strides_at, 0)
    dims.pack_into(buf, DLTENSOR_SIZE, *shape)
    if strides is not None:
        dims.pack_into(buf, DLTENSOR_SIZE + dims.size, *strides)
    return buf


@functools.cache
def _dl_dtype(dtype: DataType) -> tuple[int, int, int]:
    return dlpack.dl_dtype_of(dtype)


def _wrap_numpy(arr: np.ndarray, dev: Device) -> NDArray:
    """An NDArray sharing ``arr``'s memory."""
    layout = _NUMPY_LAYOUTS.get((arr.shape, arr.dtype))
    if layout is None:
        dtype = _NUMPY_DTYPES.get(arr.dtype) or _numpy_dtype(arr.dtype)
        _remember_numpy_layout(arr.shape, arr.dtype, dtype)
        layout = _NUMPY_LAYOUTS.get((arr.shape, arr.dtype))
    if type(arr) is np.ndarray and NUMPY_FIELDS_OK:
        data, _, _, _, flags = numpy_fields(arr)
        contiguous = flags & C_CONTIGUOUS
    else:
        data, contiguous = arr.__array_interface__["data"][0], arr.flags.c_contiguous
    if contiguous and layout is not None:
        buf = layout.head_type()
        base = ctypes.addressof(buf)
        layout.pack.pack_into(buf, 0, data, dev.device_type, dev.device_id, layout.ndim, layout.code,
                              layout.bits, layout.lanes, base + DLTENSOR_SIZE, 0, 0, *layout.shape)
        return _assemble(layout, dev, arr, None, buf, base)
    dtype = _NUMPY_DTYPES.get(arr.dtype) or _numpy_dtype(arr.dtype)
    strides = None
    if not contiguous:
        itemsize = arr.dtype.itemsize
        if any(s % itemsize for s in arr.strides):
            raise BufferError(f"array strides {arr.strides} are not a multiple of the item size {itemsize}")
        strides = tuple(s // itemsize for s in arr.strides)
    return NDArray(data, arr.shape, dtype, dev, strides, np_view=arr)


_NUMPY_DTYPES: dict[np.dtype, DataType] = {}


def _numpy_dtype(np_dtype: np.dtype) -> DataType:
    """The DataType of a numpy dtype (cached); rejects non-native byte order and unknown types."""
    if not np_dtype.isnative:
        raise BufferError(f"arrays with non-native byte order ({np_dtype.str}) are not supported")
    try:
        dtype = DataType(np_dtype)
    except ValueError:
        raise BufferError(f"unsupported element type {np_dtype}") from None
    _NUMPY_DTYPES[np_dtype] = dtype
    return dtype


class _ForeignMemory:
    """Presents foreign memory to numpy and keeps its owner alive for the view's lifetime."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, interface: dict, owner: Any):
        self.__array_interface__ = interface
        self.owner = owner


def _from_imported(imported: dlpack.ImportedTensor) -> NDArray:
    t = imported.tensor
    dtype = dlpack.dtype_from_dl(t.dtype.code, t.dtype.bits, t.dtype.lanes)
    dev = Device(int(t.device.device_type), int(t.device.device_id))
    shape = tuple(t.shape[: t.ndim])
    strides = tuple(t.strides[: t.ndim]) if t.strides else None
    data = (t.data or 0) + t.byte_offset
    view = None
    if dev.device_type in _HOST_TYPES:
        np_dtype = dtype.numpy()
        if math.prod(shape) == 0:
            view = np.empty(shape, np_dtype)
            data = view.ctypes.data
        else:
            byte_strides = None if strides is None else tuple(s * np_dtype.itemsize for s in strides)
            interface = {
                "version": 3,
                "shape": shape,
                "typestr": f"|V{np_dtype.itemsize}",
                "data": (data, imported.read_only),
                "strides": byte_strides,
            }
            view = np.asarray(_ForeignMemory(interface, imported)).view(np_dtype)
    return NDArray(data, shape, dtype, dev, strides, owner=imported, np_view=view)


def _vector_numpy(arr: NDArray) -> np.ndarray:
    """The contents of an array of a vector dtype as numpy: shape + (lanes,) of the lane dtype."""
    lanes, lane = arr._dtype.lanes, arr._dtype.element_of().numpy()
    if arr._np is not None:
        items = np.ascontiguousarray(arr._np)
        return items.view(lane).reshape(arr.shape + (lanes,)).copy()
    out = np.empty(arr.shape + (lanes,), lane)
    if out.size:
        _device_copy(out.ctypes.data, cpu(0), arr, arr.device, arr.nbytes, "numpy")
    return out


def _vector_items(arr: NDArray, source: np.ndarray) -> np.ndarray:
    """``source`` (shape + (lanes,) of the lane dtype) as one opaque item per vector element."""
    lanes, lane = arr._dtype.lanes, arr._dtype.element_of().numpy()
    if source.shape != arr.shape + (lanes,) or source.dtype != lane:
        raise ValueError(f"copyfrom: an array of {arr.dtype} and shape {arr.shape} takes a {lane} array of "
                         f"shape {arr.shape + (lanes,)}, got {source.dtype} {tuple(source.shape)}")
    items = np.ascontiguousarray(source).view(np.dtype(f"V{arr._dtype.itemsize}"))
    return items.reshape(arr.shape)


def _device_copy(dst, dst_dev: Device, src, src_dev: Device, nbytes: int, what: str) -> None:
    """Copy ``nbytes`` between compact arrays/pointers where one side is not on the cpu."""
    for side in (dst, src):
        if isinstance(side, NDArray) and not side.is_contiguous:
            raise ValueError(f"{what}: copies to or from {side.device} need compact arrays")
    dst_ptr = dst.data_ptr if isinstance(dst, NDArray) else dst
    src_ptr = src.data_ptr if isinstance(src, NDArray) else src
    device_type = dst_dev.device_type if dst_dev.device_type != DeviceType.CPU else src_dev.device_type
    other = src_dev.device_type if device_type == dst_dev.device_type else dst_dev.device_type
    load_device_backend(device_type)
    api = get_device_api(device_type)
    if api is None or other not in (DeviceType.CPU, device_type):
        raise RuntimeError(f"{what}: no memory back end can copy from {src_dev} to {dst_dev}")
    api.copy(dst_ptr, dst_dev.to_dlpack(), src_ptr, src_dev.to_dlpack(), nbytes)

"""``tvm._ffi.runtime_ctypes``: the runtime value types TVM code imports from here."""

from ..runtime.device import Device
from ..runtime.dtype import DataType

__all__ = ["DataType", "Device"]

"""Devices: ``Device(device_type, device_id)`` with DLPack type codes, and the factories
``cpu()``, ``cuda()``, ``device("cuda", 1)`` ...

``Device.exist`` asks the registered DeviceAPI, or for CUDA the driver probe; it never
raises and is False for devices this process cannot use.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .cuda_probe import cuda_device_count
from .device_api import get_device_api


class DeviceType(enum.IntEnum):
    """DLPack ``DLDeviceType`` codes."""

    CPU = 1
    CUDA = 2
    CUDA_HOST = 3
    OPENCL = 4
    VULKAN = 7
    METAL = 8
    VPI = 9
    ROCM = 10
    ROCM_HOST = 11
    EXT_DEV = 12
    CUDA_MANAGED = 13
    ONEAPI = 14
    WEBGPU = 15
    HEXAGON = 16


_TYPE_NAMES = {
    DeviceType.CPU: "cpu",
    DeviceType.CUDA: "cuda",
    DeviceType.CUDA_HOST: "cuda_host",
    DeviceType.OPENCL: "opencl",
    DeviceType.VULKAN: "vulkan",
    DeviceType.METAL: "metal",
    DeviceType.VPI: "vpi",
    DeviceType.ROCM: "rocm",
    DeviceType.ROCM_HOST: "rocm_host",
    DeviceType.EXT_DEV: "ext_dev",
    DeviceType.CUDA_MANAGED: "cuda_managed",
    DeviceType.ONEAPI: "oneapi",
    DeviceType.WEBGPU: "webgpu",
    DeviceType.HEXAGON: "hexagon",
}

# Names accepted by ``device()``: type names plus target names that imply a device.
DEVICE_NAMES: dict[str, DeviceType] = {name: code for code, name in _TYPE_NAMES.items()} | {
    "llvm": DeviceType.CPU,
    "c": DeviceType.CPU,
    "stackvm": DeviceType.CPU,
    "gpu": DeviceType.CUDA,
    "nvptx": DeviceType.CUDA,
    "cl": DeviceType.OPENCL,
    "spirv": DeviceType.VULKAN,
    "mtl": DeviceType.METAL,
    "hip": DeviceType.ROCM,
}


@dataclass(frozen=True, slots=True)
class Device:
    """A device: DLPack ``device_type`` code and ``device_id``.  Prints as ``cuda(0)``."""

    device_type: int
    device_id: int = 0

    # TVM-style class constants
    kDLCPU = DeviceType.CPU
    kDLCUDA = DeviceType.CUDA
    kDLCUDAHost = DeviceType.CUDA_HOST
    kDLOpenCL = DeviceType.OPENCL
    kDLVulkan = DeviceType.VULKAN
    kDLMetal = DeviceType.METAL
    kDLROCM = DeviceType.ROCM
    kDLExtDev = DeviceType.EXT_DEV

    def __post_init__(self):
        for field, value in (("device_type", self.device_type), ("device_id", self.device_id)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"Device: {field} must be a non-negative int, got {value!r}")

    @property
    def type_name(self) -> str:
        """``"cpu"``, ``"cuda"``, ...; ``"device_type<N>"`` for codes without a name."""
        return _TYPE_NAMES.get(self.device_type, f"device_type{self.device_type}")

    @property
    def exist(self) -> bool:
        """Whether this device is present and usable from this process."""
        try:
            api = get_device_api(self.device_type)
            if api is not None:
                return bool(api.exist(self.device_id))
            if self.device_type in (DeviceType.CPU, DeviceType.CUDA_HOST):
                return self.device_type == DeviceType.CPU or cuda_device_count() > 0
            if self.device_type == DeviceType.CUDA:
                return self.device_id < cuda_device_count()
        except Exception:
            return False
        return False

    def sync(self) -> None:
        """Wait for all work queued on the device; a no-op on cpu."""
        load_device_backend(self.device_type)
        api = get_device_api(self.device_type)
        if api is not None:
            api.sync(self.device_id)

    def to_dlpack(self) -> tuple[int, int]:
        """``(device_type, device_id)`` as returned by ``__dlpack_device__``."""
        return (int(self.device_type), self.device_id)

    def __str__(self) -> str:
        return f"{self.type_name}({self.device_id})"

    __repr__ = __str__


def load_device_backend(device_type: int) -> None:
    """Import the runtime back end of ``device_type`` if it has one (CUDA registers its DeviceAPI)."""
    if device_type == DeviceType.CUDA and get_device_api(device_type) is None:
        from . import cuda_driver  # noqa: F401  (registers on import; needs no GPU and no cuda-bindings)


def device(dev_type: str | int | Device, dev_id: int = 0) -> Device:
    """A Device from a name ("cpu", "llvm", "cuda", "gpu", "metal", ...), a type code or a Device.

    A target string such as ``"cuda -arch=sm_80"`` uses its first word; ``"cuda:1"``
    selects device 1.
    """
    if isinstance(dev_type, Device):
        return dev_type
    if isinstance(dev_type, int) and not isinstance(dev_type, bool):
        return Device(int(dev_type), dev_id)
    if not isinstance(dev_type, str):
        raise TypeError(f"device: expected a device name, type code or Device, got {type(dev_type).__name__}")
    words = dev_type.strip().split()
    name = words[0].lower() if words else ""
    if ":" in name:
        name, _, index = name.partition(":")
        if not index.isdigit():
            raise ValueError(f"device: bad device index in {dev_type!r}")
        dev_id = int(index)
    code = DEVICE_NAMES.get(name)
    if code is None:
        valid = ", ".join(sorted(DEVICE_NAMES))
        raise ValueError(f"device: unknown device name {dev_type!r}; valid names are: {valid}")
    return Device(int(code), dev_id)


_CPUS: dict = {}


def cpu(dev_id: int = 0) -> Device:
    dev = _CPUS.get(dev_id)
    if dev is None:
        dev = _CPUS[dev_id] = Device(DeviceType.CPU, dev_id)
    return dev


def cuda(dev_id: int = 0) -> Device:
    return Device(DeviceType.CUDA, dev_id)


def gpu(dev_id: int = 0) -> Device:
    """Alias of ``cuda`` (TVM's old name)."""
    return Device(DeviceType.CUDA, dev_id)


def cuda_host(dev_id: int = 0) -> Device:
    return Device(DeviceType.CUDA_HOST, dev_id)


def opencl(dev_id: int = 0) -> Device:
    return Device(DeviceType.OPENCL, dev_id)


cl = opencl


def vulkan(dev_id: int = 0) -> Device:
    return Device(DeviceType.VULKAN, dev_id)


def metal(dev_id: int = 0) -> Device:
    return Device(DeviceType.METAL, dev_id)


def rocm(dev_id: int = 0) -> Device:
    return Device(DeviceType.ROCM, dev_id)


def ext_dev(dev_id: int = 0) -> Device:
    return Device(DeviceType.EXT_DEV, dev_id)


def webgpu(dev_id: int = 0) -> Device:
    return Device(DeviceType.WEBGPU, dev_id)

"""The table of per-device-type memory back ends (``DeviceAPI``), keyed by DLPack type code.

CPU memory is handled by NDArray itself (numpy-backed).  Any other device type becomes
usable for NDArray allocation and copies once a back end registers itself here, e.g.
``register_device_api(DeviceType.CUDA, CudaDeviceAPI())``.  All pointers are plain ints
and all copies are of compact (row-major contiguous) byte ranges.
"""

from __future__ import annotations

from typing import Any, Protocol


class DeviceAPI(Protocol):
    """What a device back end provides to the runtime."""

    def exist(self, device_id: int) -> bool:
        """Whether this device id is present and usable."""

    def alloc(self, device_id: int, nbytes: int, alignment: int) -> tuple[int, Any]:
        """Allocate ``nbytes``; return (pointer, owner).  Memory is freed when owner dies."""

    def copy(
        self, dst: int, dst_device: tuple[int, int], src: int, src_device: tuple[int, int], nbytes: int
    ) -> None:
        """Copy bytes; one side is this device type, the other this type or cpu (1)."""

    def sync(self, device_id: int) -> None:
        """Wait until all work queued on the device is done."""


_apis: dict[int, DeviceAPI] = {}


def register_device_api(device_type: int, api: DeviceAPI, override: bool = False) -> None:
    """Install the memory back end for a DLPack device type."""
    if device_type in _apis and not override:
        raise ValueError(
            f"a DeviceAPI is already registered for device type {device_type}; pass override=True"
        )
    _apis[int(device_type)] = api


def get_device_api(device_type: int) -> DeviceAPI | None:
    """The registered back end for a device type, or None."""
    return _apis.get(device_type)


def remove_device_api(device_type: int) -> None:
    """Uninstall the back end of a device type (no-op when none is registered)."""
    _apis.pop(int(device_type), None)

"""The constant tensors of an executable in one arena on huge pages, in program order.

The first VM that runs an executable on the CPU moves its constant tensors of
``MIN_BYTES`` or more (the weights) into one array from ``huge_pages.empty``, each 64-byte
aligned, in the order the program first uses them: a layer's weights then sit on 2 MiB
pages, next to the following layer's.  ResNet-50 at 2 threads ran in 0.98 of the time with
its weights (and large activations) there.  The executable's constant list is updated in
place, so later VMs (and ``export_library``) see the same arrays; the old arrays are freed
unless something else holds them (the Relax module they were built from may: then they take
twice the memory, so an executable whose weights exceed a quarter of the memory available is
left as it is).  Constants are never written, so moving them is safe before any VM function
has been written out (which bakes in their addresses).
"""

from __future__ import annotations

import os

import numpy as np

from .. import huge_pages
from ..device import DeviceType
from ..ndarray import NDArray, _wrap_numpy
from .executable import Executable

__all__ = ["pack_constants", "MIN_BYTES"]

MIN_BYTES = 4096
_ALIGN = 64
_PLAIN = {"float16", "float32", "float64", "int8", "int16", "int32", "int64",
          "uint8", "uint16", "uint32", "uint64", "bool"}


def _movable(value) -> bool:
    return (type(value) is NDArray and value.device.device_type == DeviceType.CPU and value.dtype in _PLAIN
            and value.is_contiguous and value.nbytes >= MIN_BYTES)


def _available_bytes() -> int:
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):  # not a POSIX sysconf: assume plenty
        return 1 << 62


def _first_use_order(exe: Executable) -> list[int]:
    order: dict[int, None] = {}
    for func in exe.functions.values():
        for instr in func.instrs:
            for arg in getattr(instr, "args", ()):
                if arg.kind == "const":
                    order.setdefault(arg.value, None)
    order.update(dict.fromkeys(range(len(exe.constants))))  # unused ones last
    return list(order)


def pack_constants(exe: Executable) -> None:
    """Move ``exe``'s weight-sized CPU constants into one huge-page arena (once per executable)."""
    if "_constant_arena" in vars(exe) or not huge_pages.enabled():
        return
    constants = exe.constants
    picks = [i for i in _first_use_order(exe) if i < len(constants) and _movable(constants[i])]
    offsets, total = [], 0
    for i in picks:
        offsets.append(total)
        total += -(-constants[i].nbytes // _ALIGN) * _ALIGN
    if total > _available_bytes() // 4:
        picks = []  # a copy this large could run the machine out of memory
    exe._constant_arena = arena = huge_pages.empty(total) if picks else None
    for i, offset in zip(picks, offsets):
        value = np.asarray(constants[i])  # a view of a cpu array: each weight copied once, into the arena
        view = arena[offset:offset + value.nbytes].view(value.dtype).reshape(value.shape)
        np.copyto(view, value)
        constants[i] = _wrap_numpy(view, constants[i].device)

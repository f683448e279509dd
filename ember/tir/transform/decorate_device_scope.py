"""DecorateDeviceScope: mark a whole function body as device code.

The body is wrapped in ``AttrStmt(0, "device_scope", 0, body)``, the marker that
AnnotateDeviceRegions and SplitHostDevice look for when a function runs entirely on
the device (no ``thread_extent`` of its own).
"""

from __future__ import annotations

from ember.ir import const
from ember.transform import Pass

from ..function import PrimFunc
from ..stmt import AttrStmt
from ._common import make_pass

__all__ = ["decorate_device_scope", "DecorateDeviceScope"]


def decorate_device_scope(func: PrimFunc) -> PrimFunc:
    """``func`` with its body inside a ``device_scope`` attribute."""
    zero = const(0, "int32")
    return func.with_body(AttrStmt(zero, "device_scope", zero, func.body))


def DecorateDeviceScope() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`decorate_device_scope`."""
    return make_pass(decorate_device_scope, "tir.DecorateDeviceScope")

"""CompactBufferAllocation: not written yet — returns its input unchanged."""

from __future__ import annotations

from ember.transform import Pass

from ..function import PrimFunc
from ._common import make_pass

__all__ = ["compact_buffer_allocation", "CompactBufferAllocation"]


def compact_buffer_allocation(func: PrimFunc) -> PrimFunc:
    return func


def CompactBufferAllocation() -> Pass:  # noqa: N802 - TVM's name
    return make_pass(compact_buffer_allocation, "tir.CompactBufferAllocation")

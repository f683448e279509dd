"""Test helpers: numeric comparison that accepts any array type, and device-aware skips."""

from .asserts import assert_allclose, to_numpy
from .devices import enabled_targets, requires_cuda, requires_gpu, uses_gpu

__all__ = ["assert_allclose", "enabled_targets", "requires_cuda", "requires_gpu", "to_numpy", "uses_gpu"]

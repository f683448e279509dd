"""Test helpers: numeric comparison that accepts any array type, and device-aware skips."""

from .asserts import assert_allclose, to_numpy
from .devices import enabled_targets, requires_cuda, requires_gpu, uses_gpu
from .utils import main, parameter, requires_llvm

__all__ = [
    "assert_allclose", "enabled_targets", "main", "parameter", "requires_cuda", "requires_gpu",
    "requires_llvm", "to_numpy", "uses_gpu",
]

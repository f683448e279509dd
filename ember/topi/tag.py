"""Operator tags (TVM's ``topi.tag``): what kind of computation a compute op is."""

from __future__ import annotations

ELEMWISE = "elemwise"
BROADCAST = "broadcast"
INJECTIVE = "injective"
COMM_REDUCE = "comm_reduce"
COMM_REDUCE_IDX = "comm_reduce_idx"
OPAQUE = "opaque"
CONV2D_NCHW = "conv2d_nchw"
DENSE = "dense"

__all__ = [
    "ELEMWISE", "BROADCAST", "INJECTIVE", "COMM_REDUCE", "COMM_REDUCE_IDX", "OPAQUE", "CONV2D_NCHW",
    "DENSE", "is_broadcast", "is_injective",
]


def is_broadcast(tag: str) -> bool:
    """Elementwise or broadcast (``broadcast_*`` / ``elemwise_*`` prefixes count)."""
    return tag in (ELEMWISE, BROADCAST) or tag.startswith(ELEMWISE) or tag.startswith(BROADCAST)


def is_injective(tag: str) -> bool:
    """Broadcast-like or another injective mapping."""
    return is_broadcast(tag) or tag in (INJECTIVE,) or tag.startswith(INJECTIVE)

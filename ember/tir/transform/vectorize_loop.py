"""VectorizeLoop: not written yet — returns its input unchanged."""

from __future__ import annotations

from ember.transform import Pass

from ..function import PrimFunc
from ._common import make_pass

__all__ = ["vectorize_loop", "VectorizeLoop"]


def vectorize_loop(func: PrimFunc) -> PrimFunc:
    return func


def VectorizeLoop() -> Pass:  # noqa: N802 - TVM's name
    return make_pass(vectorize_loop, "tir.VectorizeLoop")

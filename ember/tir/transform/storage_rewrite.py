"""StorageRewrite: not written yet — returns its input unchanged."""

from __future__ import annotations

from ember.transform import Pass

from ..function import PrimFunc
from ._common import make_pass

__all__ = ["storage_rewrite", "StorageRewrite"]


def storage_rewrite(func: PrimFunc) -> PrimFunc:
    return func


def StorageRewrite() -> Pass:  # noqa: N802 - TVM's name
    return make_pass(storage_rewrite, "tir.StorageRewrite")

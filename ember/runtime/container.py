"""Runtime containers with TVM's names: ``ShapeTuple`` (a shape passed to or returned by
the Relax VM).  It is a plain tuple of ints underneath, so the VM and numpy take it as is."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ShapeTuple"]


class ShapeTuple(tuple):
    """An immutable tuple of integer dimensions, e.g. ``ShapeTuple([1, 784])``."""

    __slots__ = ()

    def __new__(cls, shape: Iterable[int] = ()):
        dims = []
        for i, dim in enumerate(shape):
            try:
                dims.append(int(dim))
            except (TypeError, ValueError):
                raise TypeError(f"ShapeTuple: dimension {i} must be an integer, got {dim!r}") from None
        return super().__new__(cls, dims)

    def __repr__(self) -> str:
        return f"ShapeTuple({list(self)})"

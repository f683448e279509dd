"""Runtime containers with TVM's names: ``ShapeTuple`` (a shape passed to or returned by
the Relax VM).  It is a plain tuple of ints underneath, so the VM and numpy take it as is."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ShapeTuple", "make_shape_tuple"]


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

    def __eq__(self, other) -> bool:
        """Equal to any tuple or list of the same dims (``vm["f"](x) == [4, 9]``), as TVM's."""
        if isinstance(other, tuple | list):
            return tuple.__eq__(self, tuple(other))
        return NotImplemented

    def __ne__(self, other) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return f"ShapeTuple({list(self)})"


def make_shape_tuple(dims: tuple) -> ShapeTuple:
    """A ShapeTuple of ``dims`` (already ints), without the per-dim conversion."""
    return tuple.__new__(ShapeTuple, dims)

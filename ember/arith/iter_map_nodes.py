"""The nodes of affine iterator maps (TVM's IterMark / IterSplitExpr / IterSumExpr).

An ``IterMark(source, extent)`` is an iterator ranging over ``[0, extent)``; its
source is an input loop variable or an ``IterSumExpr`` fusing several iterators.
``IterSplitExpr(source, lower_factor, extent, scale)`` is
``((source // lower_factor) % extent) * scale`` — one digit of a mark's mixed-radix
representation, scaled.  ``IterSumExpr(args, base)`` is ``sum(args) + base``.
"""

from __future__ import annotations

from ember.ir import Node, PrimExpr, as_expr, node
from ember.runtime.dtype import DataType

__all__ = ["IterMark", "IterSplitExpr", "IterSumExpr", "IterMapExpr"]


class IterMapExpr(PrimExpr):
    """Base of the iterator-map expressions."""

    __slots__ = ()


@node
class IterMark(Node):
    """An iterator over ``[0, extent)`` whose value is ``source``."""

    source: PrimExpr
    extent: PrimExpr

    def __post_init__(self):
        _coerce_ints(self, ("source", "extent"))

    def __repr__(self) -> str:
        return f"IterMark({self.source!r}, extent={self.extent!r})"


@node
class IterSplitExpr(IterMapExpr):
    """``((source // lower_factor) % extent) * scale`` for an IterMark ``source``."""

    source: IterMark
    lower_factor: PrimExpr
    extent: PrimExpr
    scale: PrimExpr

    def __post_init__(self):
        if not isinstance(self.source, IterMark):  # TVM accepts a plain expression
            object.__setattr__(self, "source", IterMark(self.source, self.extent))
        _coerce_ints(self, ("lower_factor", "extent", "scale"))

    @property
    def dtype(self) -> DataType:
        return self.scale.dtype

    def __repr__(self) -> str:
        return (f"IterSplit({self.source!r}, lower_factor={self.lower_factor!r}, "
                f"extent={self.extent!r}, scale={self.scale!r})")


@node
class IterSumExpr(IterMapExpr):
    """``sum(args) + base`` where each arg is an IterSplitExpr."""

    args: tuple
    base: PrimExpr

    def __post_init__(self):
        if not isinstance(self.args, tuple):
            object.__setattr__(self, "args", tuple(self.args))
        _coerce_ints(self, ("base",))

    @property
    def dtype(self) -> DataType:
        return self.base.dtype

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args]
        return f"IterSum([{', '.join(parts)}], base={self.base!r})"


def _coerce_ints(obj, names) -> None:
    """Turn plain Python ints given for expression fields into int32 constants (as TVM)."""
    for name in names:
        value = getattr(obj, name)
        if isinstance(value, int):
            object.__setattr__(obj, name, as_expr(value))

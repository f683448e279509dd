"""Data layouts written as strings, TVM's ``tir.layout``: ``"NCHW"``, ``"NHWC"``, ``"NCHW16c"``.

A layout names the axes of a tensor in order.  An upper-case letter is a *primal* axis (the
whole extent of a logical dimension); a number and the same letter in lower case is a *sub*
axis: ``"NCHW16c"`` has axes N, C, H, W, c where the logical channel ``C = C·16 + c`` (the
upper-case axis keeps ``C / 16`` blocks, the sub axis the 16 channels of a block).  Layouts
with the same primal letters describe the same logical tensor, and ``index_map`` gives the
map from one to the other (what ``relax.layout_transform`` takes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ember.runtime.dtype import DataType

__all__ = ["Layout", "layout", "layout_index_map", "relayout_array"]

_TOKEN = re.compile(r"(\d*)([A-Za-z])")


@dataclass(frozen=True)
class Layout:
    """A parsed layout: ``axes[i]`` is ``(letter, factor)``; factor is None for primal axes."""

    name: str
    axes: tuple

    @property
    def primal(self) -> str:
        """The primal letters in order (``"NCHW16c"`` → ``"NCHW"``)."""
        return "".join(a for a, f in self.axes if f is None)

    @property
    def ndim(self) -> int:
        return len(self.axes)

    def __len__(self) -> int:
        return len(self.axes)

    def __contains__(self, letter: str) -> bool:
        return any(a == letter for a, _ in self.axes)

    def __getitem__(self, i: int) -> str:
        """The letter of axis ``i`` (TVM's ``layout[i]``)."""
        return self.axes[i][0]

    def index_of(self, letter: str) -> int:
        """Position of the axis ``letter`` (upper case: primal, lower case: sub), -1 if absent."""
        return next((i for i, (a, _) in enumerate(self.axes) if a == letter), -1)

    def factor_of(self, letter: str) -> int:
        """The sub-axis factor of the logical dimension ``letter`` (-1 when it is not split)."""
        sub = letter.lower()
        return next((f for a, f in self.axes if a == sub), -1)

    @property
    def is_split(self) -> bool:
        return any(f is not None for _, f in self.axes)

    def shape(self, logical: dict) -> list:
        """This layout's shape for logical extents ``{letter: extent}`` (split dims divided)."""
        out = []
        for a, f in self.axes:
            if f is not None:
                out.append(f)
            else:
                g = self.factor_of(a)
                out.append(logical[a] if g == -1 else logical[a] // g)
        return out

    def logical(self, shape) -> dict:
        """``{letter: extent}`` of the logical dimensions of a tensor of ``shape`` in this layout."""
        dims = dict(zip((a for a, _ in self.axes), shape))
        return {a: dims[a] if self.factor_of(a) == -1 else dims[a] * self.factor_of(a) for a in self.primal}

    def divides(self, logical: dict) -> bool:
        """Whether every split logical extent (a Python int, or an ``IntImm``) is a multiple of its factor.
        Unknown (symbolic) split extents count as not dividing."""
        for a, f in self.axes:
            if f is None:
                continue
            v = logical.get(a.upper())
            v = getattr(v, "value", v)
            if not isinstance(v, int) or v % f:
                return False
        return True

    def __str__(self) -> str:
        return self.name


def layout(name: str, dtype: str = "int32") -> Layout:
    """Parse ``name`` (``"NCHW"``, ``"NCHW16c"``, ``"OIHW16i4o"``); raises ValueError on a
    malformed layout (a repeated axis, a sub axis without a factor or without its primal axis).
    ``dtype`` (TVM's argument) is the index type and must be an integer type."""
    if not isinstance(dtype, str) or not DataType(dtype).is_integer:
        raise TypeError(f"layout {name!r}: dtype must be an integer type such as 'int32', got {dtype!r}")
    if isinstance(name, Layout):
        return name
    pos, axes = 0, []
    for m in _TOKEN.finditer(name):
        if m.start() != pos:
            break
        pos = m.end()
        digits, letter = m.groups()
        if letter.isupper():
            if digits:
                raise ValueError(f"layout {name!r}: a primal axis {letter!r} cannot have a factor")
            axes.append((letter, None))
        else:
            if not digits or int(digits) <= 0:
                raise ValueError(f"layout {name!r}: the sub axis {letter!r} needs a positive factor")
            axes.append((letter, int(digits)))
    if pos != len(name):
        raise ValueError(f"layout {name!r}: cannot parse {name[pos:]!r}")
    letters = [a for a, _ in axes]
    if len(set(letters)) != len(letters):
        raise ValueError(f"layout {name!r}: an axis is repeated")
    for a, f in axes:
        if f is not None and a.upper() not in letters:
            raise ValueError(f"layout {name!r}: the sub axis {a!r} has no primal axis {a.upper()!r}")
    return Layout(name, tuple(axes))


def layout_index_map(src, dst, index_dtype: str = "int32"):
    """The ``IndexMap`` taking an index of a tensor in layout ``src`` to its index in ``dst``
    (same primal letters), e.g. NCHW → NCHW4c: ``(i0, i1 // 4, i2, i3, i1 % 4)``."""
    from .schedule.index_map import IndexMap

    src, dst = layout(src), layout(dst)
    if sorted(src.primal) != sorted(dst.primal):
        raise ValueError(f"layout_index_map: {src} and {dst} do not have the same primal axes")

    def mapping(*idx):
        at = dict(zip((a for a, _ in src.axes), idx))
        logical = {}
        for a in src.primal:
            f = src.factor_of(a)
            logical[a] = at[a] if f == -1 else at[a] * f + at[a.lower()]
        out = []
        for a, f in dst.axes:
            if f is not None:
                out.append(logical[a.upper()] % f)
            else:
                g = dst.factor_of(a)
                out.append(logical[a] if g == -1 else logical[a] // g)
        return tuple(out)

    return IndexMap.from_func(mapping, ndim=src.ndim, index_dtype=index_dtype)


def relayout_array(array, src, dst):
    """A numpy ``array`` laid out as ``src`` rewritten in layout ``dst`` (split extents must
    divide): what ``relax.layout_transform`` with ``layout_index_map(src, dst)`` computes."""
    import numpy as np

    src, dst = layout(src), layout(dst)
    names = [a for a, _ in src.axes]
    # to the logical layout: each split primal axis followed by its sub axis, then merged
    order = []
    for a in src.primal:
        order.append(names.index(a))
        if src.factor_of(a) != -1:
            order.append(names.index(a.lower()))
    logical = src.logical(array.shape)
    array = np.transpose(array, order).reshape([logical[a] for a in src.primal])
    # split the dimensions dst splits, then put the axes in dst's order
    split_shape, split_names = [], []
    for a in src.primal:
        f = dst.factor_of(a)
        if f == -1:
            split_shape.append(logical[a])
            split_names.append(a)
        else:
            split_shape += [logical[a] // f, f]
            split_names += [a, a.lower()]
    array = array.reshape(split_shape)
    return np.ascontiguousarray(np.transpose(array, [split_names.index(a) for a, _ in dst.axes]))

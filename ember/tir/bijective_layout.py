"""``tir.bijective_layout(src, dst)``: converting shapes and indices between two data layouts
of the same logical tensor (TVM's BijectiveLayout), e.g. NCHW ↔ NCHW16c.

Layouts are parsed by ``tir.data_layout``; two layouts convert when they have the same
primal axes. ``forward_*`` goes from ``src`` to ``dst``, ``backward_*`` back. An undefined
layout (``""`` or ``"__undef__"``) or layouts of different axes give None, as in TVM.
"""

from __future__ import annotations

from ember.ir import as_expr

from .data_layout import Layout, layout

__all__ = ["BijectiveLayout", "bijective_layout"]

_UNDEFINED = ("", "__undef__")


def _logical_index(lay: Layout, index) -> dict:
    at = dict(zip((a for a, _ in lay.axes), (as_expr(i) for i in index)))
    out = {}
    for a in lay.primal:
        f = lay.factor_of(a)
        out[a] = at[a] if f == -1 else at[a] * f + at[a.lower()]
    return out


def _index_in(lay: Layout, logical: dict) -> list:
    out = []
    for a, f in lay.axes:
        if f is not None:
            out.append(logical[a.upper()] % f)
        else:
            g = lay.factor_of(a)
            out.append(logical[a] if g == -1 else logical[a] // g)
    return out


def _fold(e):
    from ember.arith import Analyzer

    return Analyzer().simplify(e)


class BijectiveLayout:
    """The two-way conversion between layouts ``src_layout`` and ``dst_layout``."""

    def __init__(self, src: Layout, dst: Layout):
        self.src_layout, self.dst_layout = src, dst

    def forward_index(self, index) -> list:
        return [_fold(e) for e in _index_in(self.dst_layout, _logical_index(self.src_layout, index))]

    def backward_index(self, index) -> list:
        return [_fold(e) for e in _index_in(self.src_layout, _logical_index(self.dst_layout, index))]

    def forward_shape(self, shape) -> list:
        return [_fold(as_expr(e)) for e in self.dst_layout.shape(self.src_layout.logical([as_expr(s) for s in shape]))]

    def backward_shape(self, shape) -> list:
        return [_fold(as_expr(e)) for e in self.src_layout.shape(self.dst_layout.logical([as_expr(s) for s in shape]))]

    def __repr__(self) -> str:
        return f"BijectiveLayout({self.src_layout}->{self.dst_layout})"


def bijective_layout(src_layout, dst_layout) -> BijectiveLayout | None:
    """The conversion between two layouts, or None when they are undefined or differ in axes."""
    if any(isinstance(x, str) and x in _UNDEFINED for x in (src_layout, dst_layout)):
        return None
    src, dst = layout(src_layout), layout(dst_layout)
    if sorted(src.primal) != sorted(dst.primal):
        return None
    return BijectiveLayout(src, dst)

"""depth_to_space and space_to_depth (NCHW), with DCR or CRD channel order."""

from __future__ import annotations

from ember import te
from ember.tir import op as tir_op

__all__ = ["depth_to_space", "space_to_depth"]


def depth_to_space(data, block_size: int, layout: str = "NCHW", mode: str = "DCR") -> te.Tensor:
    """Move ``block_size``² channel groups into spatial blocks."""
    if layout != "NCHW":
        raise ValueError(f"topi.nn.depth_to_space: only the NCHW layout is implemented, got {layout!r}")
    if mode not in ("DCR", "CRD"):
        raise ValueError(f"topi.nn.depth_to_space: mode must be 'DCR' or 'CRD', got {mode!r}")
    b = block_size
    n, c, h, w = data.shape
    out_c = tir_op.floordiv(c, b * b)

    def f(i, oc, y, x):
        by, bx = tir_op.floormod(y, b), tir_op.floormod(x, b)
        if mode == "DCR":
            ch = (by * b + bx) * out_c + oc
        else:
            ch = oc * (b * b) + by * b + bx
        return data(i, ch, tir_op.floordiv(y, b), tir_op.floordiv(x, b))

    return te.compute((n, out_c, h * b, w * b), f, name="depth_to_space")


def space_to_depth(data, block_size: int, layout: str = "NCHW") -> te.Tensor:
    """Move spatial ``block_size`` x ``block_size`` blocks into channels."""
    if layout != "NCHW":
        raise ValueError(f"topi.nn.space_to_depth: only the NCHW layout is implemented, got {layout!r}")
    b = block_size
    n, c, h, w = data.shape

    def f(i, oc, y, x):
        block = tir_op.floordiv(oc, c)
        ch = tir_op.floormod(oc, c)
        return data(i, ch, y * b + tir_op.floordiv(block, b), x * b + tir_op.floormod(block, b))

    return te.compute((n, c * b * b, tir_op.floordiv(h, b), tir_op.floordiv(w, b)), f, name="space_to_depth")

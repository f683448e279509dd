"""``grid_sample``: sample an image batch at the points of a normalised grid (ONNX
semantics, which are PyTorch's except that bicubic with border/reflection padding moves the
coordinate, not each tap), 2-D (NCHW) or 3-D (NCDHW).

``grid`` is channel-first as in TVM: ``[N, 2, Ho, Wo]`` (x, y) or ``[N, 3, Do, Ho, Wo]``
(x, y, z), entries in [-1, 1].  Each coordinate is mapped to pixel space
(``align_corners``), rounded half-to-even for ``nearest``, brought back inside the border
range (``border``: clamped, ``reflection``: reflected), then interpolated from 1
(nearest), 2 (bilinear) or 4 (bicubic, Keys' a = -0.75) taps per dim; taps outside the
image read 0 (``zeros``), the clamped pixel (``border``) or the reflected one.
"""

from __future__ import annotations

import itertools

from ember import te
from ember.ir import const
from ember.tir import Let, Var
from ember.tir import op as tir_op

from ..utils import get_const_int

__all__ = ["grid_sample"]

_LAYOUTS = {"NCHW": 2, "NCDHW": 3}


def _rint(v, f):
    up = tir_op.floor(v + const(0.5, f))
    tie = tir_op.logical_and(up - v == const(0.5, f), tir_op.floormod(up, const(2.0, f)) == const(1.0, f))
    return tir_op.Select(tie, up - const(1.0, f), up)


def _reflect(v, lo: float, hi: float, f):
    span = hi - lo
    if span <= 0:
        return const(lo, f)

    def fold(dx, near_is_lo: bool):
        n = tir_op.floor(dx / const(span, f))
        r = dx - n * const(span, f)
        even = tir_op.floormod(n, const(2.0, f)) == const(0.0, f)
        from_lo, from_hi = const(lo, f) + r, const(hi, f) - r
        first, second = (from_lo, from_hi) if near_is_lo else (from_hi, from_lo)
        return tir_op.Select(even, first, second)

    below = fold(const(lo, f) - v, True)
    above = fold(v - const(hi, f), False)
    return tir_op.Select(v < const(lo, f), below, tir_op.Select(v > const(hi, f), above, v))


def _cubic_weights(t, f):
    a = -0.75

    def far(x):
        return ((const(a, f) * x - const(5 * a, f)) * x + const(8 * a, f)) * x - const(4 * a, f)

    def near(x):
        return (const(a + 2, f) * x - const(a + 3, f)) * x * x + const(1.0, f)

    one, two = const(1.0, f), const(2.0, f)
    return [far(t + one), near(t), near(one - t), far(two - t)]


def grid_sample(data, grid, method: str = "bilinear", layout: str = "NCHW", padding_mode: str = "zeros",
                align_corners: bool = True) -> te.Tensor:
    """Sample ``data`` at ``grid`` (see the module docstring)."""
    if layout not in _LAYOUTS:
        raise ValueError(f"topi.image.grid_sample: layout must be one of {sorted(_LAYOUTS)}, got {layout!r}")
    if method not in ("nearest", "bilinear", "bicubic"):
        raise ValueError(f"topi.image.grid_sample: method must be nearest, bilinear or bicubic, got {method!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("topi.image.grid_sample: padding_mode must be zeros, border or reflection, "
                         f"got {padding_mode!r}")
    r = _LAYOUTS[layout]
    if len(data.shape) != r + 2 or len(grid.shape) != r + 2 or get_const_int(grid.shape[1]) != r:
        raise ValueError(f"topi.image.grid_sample: {layout} needs data of rank {r + 2} and grid [N, {r}, ...], "
                         f"got {list(data.shape)} and {list(grid.shape)}")
    dims = [get_const_int(s) for s in data.shape[2:]]
    f = grid.dtype
    idx_dtype = data.shape[2].dtype
    out_shape = (data.shape[0], data.shape[1], *grid.shape[2:])

    def compute(n, c, *o):
        # each coordinate and tap position is bound once (Let): reflection repeats its argument
        # five times, so writing them inline makes the expression grow with the product of taps
        bindings = []

        def bind(name, value):
            var = Var(f"{name}{len(bindings)}", f)
            bindings.append((var, value))
            return var

        per_dim = []
        for i, d in enumerate(dims):  # spatial dim i of data reads grid channel r-1-i
            g = grid(n, const(r - 1 - i, grid.shape[1].dtype), *o)
            if align_corners:
                v = (g + const(1.0, f)) * const((d - 1) / 2.0, f)
                lo, hi = 0.0, d - 1.0
            else:
                v = ((g + const(1.0, f)) * const(float(d), f) - const(1.0, f)) / const(2.0, f)
                lo, hi = -0.5, d - 0.5
            if method == "nearest":
                v = _rint(v, f)
            if padding_mode == "border":
                inside = tir_op.logical_and(v >= const(lo, f), v <= const(hi, f))
                v = tir_op.Select(inside, v, tir_op.min(tir_op.max(v, const(0.0, f)), const(d - 1.0, f)))
            elif padding_mode == "reflection":
                v = _reflect(v, lo, hi, f)
            v = bind("coord", v)
            if method == "nearest":
                taps = [(v, None)]
            else:
                base = tir_op.floor(v)
                t = v - base
                if method == "bilinear":
                    taps = [(base, const(1.0, f) - t), (base + const(1.0, f), t)]
                else:
                    taps = [(base + const(float(k), f), w) for k, w in zip((-1, 0, 1, 2), _cubic_weights(t, f))]
            fetched = []
            for pos, w in taps:
                valid = None
                if padding_mode == "zeros":
                    valid = tir_op.logical_and(pos >= const(0.0, f), pos <= const(d - 1.0, f))
                elif padding_mode == "reflection" and method != "nearest":
                    pos = bind("tap", _reflect(pos, lo, hi, f))
                index = tir_op.min(tir_op.max(tir_op.cast(pos, idx_dtype), const(0, idx_dtype)),
                                   const(d - 1, idx_dtype))
                fetched.append((index, w, valid))
            per_dim.append(fetched)
        total = None
        for combo in itertools.product(*per_dim):
            value = tir_op.cast(data(n, c, *[ix for ix, _, _ in combo]), f)
            for _, w, valid in combo:
                if w is not None:
                    value = value * w
                if valid is not None:
                    value = tir_op.Select(valid, value, const(0.0, f))
            total = value if total is None else total + value
        total = tir_op.cast(total, data.dtype)
        for var, value in reversed(bindings):
            total = Let(var, value, total)
        return total

    return te.compute(out_shape, compute, name="grid_sample", tag="grid_sample")

"""Constant padding (``nn.pad``) and the padding-argument parser shared by conv and pool."""

from __future__ import annotations

from ember import te
from ember.ir import as_expr
from ember.tir import op as tir_op

from ..utils import is_const_int

__all__ = ["pad", "get_pad_tuple"]


def pad(data, pad_before, pad_after=None, pad_value=0.0, name: str = "PadInput", attrs=None) -> te.Tensor:
    """``data`` surrounded by ``pad_value``; ``pad_before/after`` give one amount per dim."""
    n = data.ndim
    pad_after = pad_after if pad_after is not None else pad_before
    if len(pad_before) != n or len(pad_after) != n:
        raise ValueError(
            f"topi.nn.pad: pad_before and pad_after need {n} entries (one per dimension), "
            f"got {len(pad_before)} and {len(pad_after)}"
        )
    shape = tuple(data.shape[i] + pad_before[i] + pad_after[i] if not (
        is_const_int(pad_before[i], 0) and is_const_int(pad_after[i], 0)) else data.shape[i] for i in range(n))
    value = tir_op.cast(as_expr(pad_value), data.dtype) if not isinstance(pad_value, int | float) else None

    def f(*idx):
        conds, src = [], []
        for i in range(n):
            if is_const_int(pad_before[i], 0) and is_const_int(pad_after[i], 0):
                src.append(idx[i])
                continue
            src.append(idx[i] - pad_before[i] if not is_const_int(pad_before[i], 0) else idx[i])
            conds.append(idx[i] >= pad_before[i])
            conds.append(idx[i] < data.shape[i] + pad_before[i])
        fill = value if value is not None else _const(pad_value, data.dtype)
        if conds:
            return tir_op.if_then_else(tir_op.all(*conds), data(*src), fill)
        return data(*src)

    return te.compute(shape, f, name=name, attrs=attrs)


def _const(v, dtype):
    from ember.ir import const

    if dtype.is_float or float(v).is_integer():
        return const(v, dtype)
    return const(int(v), dtype)


def get_pad_tuple(padding, kernel) -> tuple:
    """``(pad_top, pad_left, pad_down, pad_right)`` from an int, (h, w), 4-tuple,
    'SAME' or 'VALID' padding and the (dilated) kernel size (kh, kw)."""
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return 0, 0, 0, 0
        if padding.upper() == "SAME":
            ph, pw = kernel[0] - 1, kernel[1] - 1
            top, left = (ph + 1) // 2, (pw + 1) // 2
            return top, left, ph - top, pw - left
        raise ValueError(f"padding must be 'SAME', 'VALID', an int or a tuple, got {padding!r}")
    if isinstance(padding, int):
        return padding, padding, padding, padding
    padding = tuple(padding)
    if len(padding) == 2:
        return padding[0], padding[1], padding[0], padding[1]
    if len(padding) == 4:
        return padding
    raise ValueError(f"padding must have 2 or 4 entries, got {padding!r}")


def mirror_pad(data, pad_before, pad_after=None, mode: str = "SYMMETRIC", name: str = "MirrorPadInput") -> te.Tensor:
    """Padding by reflection: ``SYMMETRIC`` repeats the edge element, ``REFLECT`` does not."""
    if mode not in ("SYMMETRIC", "REFLECT"):
        raise ValueError(f"topi.nn.mirror_pad: mode must be 'SYMMETRIC' or 'REFLECT', got {mode!r}")
    n = data.ndim
    pad_after = pad_after if pad_after is not None else pad_before
    shape = tuple(data.shape[i] + pad_before[i] + pad_after[i] for i in range(n))
    shift = 1 if mode == "REFLECT" else 0

    def f(*idx):
        src = []
        for i in range(n):
            if is_const_int(pad_before[i], 0) and is_const_int(pad_after[i], 0):
                src.append(idx[i])
                continue
            x = idx[i] - pad_before[i]
            size = data.shape[i]
            below = tir_op.Select(x < 0, -x - 1 + shift, x)
            src.append(tir_op.Select(below >= size, 2 * size - 1 - below - shift, below))
        return data(*src)

    return te.compute(shape, f, name=name)


__all__.append("mirror_pad")

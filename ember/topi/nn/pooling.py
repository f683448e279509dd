"""Pooling: pool1d/2d/3d (max, avg) with padding, dilation and ceil mode; adaptive and
global pooling.  Layouts are channels-first (NCW, NCHW, NCDHW) or NHWC for 2-D.

Average pooling sums into ``pool_sum`` and divides in ``pool_avg`` by the window size,
or (``count_include_pad=False``) by the number of window positions inside the input.
Adaptive pooling uses a fixed-size reduction window with a ``where`` condition, so the
window of output ``i`` is ``[floor(i*H/O), ceil((i+1)*H/O))``.
"""

from __future__ import annotations

from ember import te
from ember.ir import const
from ember.tir import op as tir_op

from ..utils import get_const_int
from .pad import pad

__all__ = ["pool1d", "pool2d", "pool3d", "adaptive_pool", "adaptive_pool1d", "adaptive_pool3d", "global_pool"]

_SPATIAL_AXES = {"NCW": (2,), "NCHW": (2, 3), "NCDHW": (2, 3, 4), "NHWC": (1, 2), "NWC": (1,), "NDHWC": (1, 2, 3)}


def _axes(layout: str, n: int, what: str) -> tuple:
    axes = _SPATIAL_AXES.get(layout) or _blocked_axes(layout)
    if axes is None or len(axes) != n:
        raise ValueError(f"{what}: layout {layout!r} is not a supported {n}-D pooling layout")
    return axes


def _blocked_axes(name: str) -> tuple | None:
    """Spatial axes of a channel-blocked layout (``"NCHW16c"``: (2, 3)); None unless only N and
    C are split."""
    from ember.tir.data_layout import layout

    try:
        lay = layout(name)
    except ValueError:
        return None
    spatial = [c for c in "DHW" if c in lay.primal]
    if not lay.is_split or any(lay.factor_of(c) != -1 for c in spatial) or set(lay.primal) - set("NCDHW"):
        return None
    return tuple(lay.index_of(c) for c in spatial)


def _count(start, size, kernel: int, dilation: int, lo, hi):
    """How many of ``start + r*dilation`` (r < kernel) lie in [lo, hi)."""
    first = tir_op.max(tir_op.floordiv(lo - start + dilation - 1, dilation), 0)
    last = tir_op.min(tir_op.floordiv(hi - start + dilation - 1, dilation), kernel)
    return tir_op.max(last - first, 0)


def _pool(data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout, count_include_pad, n):
    what = f"topi.nn.pool{n}d"
    if pool_type not in ("max", "avg"):
        raise ValueError(f"{what}: pool_type must be 'max' or 'avg', got {pool_type!r}")
    axes = _axes(layout, n, what)
    kernel = [int(k) for k in kernel]
    stride = [int(s) for s in stride] if stride is not None else [1] * n
    dilation = [int(d) for d in dilation] if dilation is not None else [1] * n
    padding = list(padding)
    before, after = (padding[:n], padding[n:]) if len(padding) == 2 * n else (padding, padding)
    before, after = [int(b) for b in before], [int(a) for a in after]
    sizes = [get_const_int(data.shape[a]) for a in axes]
    extra, outs = [], []
    for i in range(n):
        dk = (kernel[i] - 1) * dilation[i] + 1
        span = sizes[i] + before[i] + after[i] - dk
        if ceil_mode:
            out = -(-span // stride[i]) + 1
            if (out - 1) * stride[i] >= sizes[i] + before[i]:
                out -= 1
        else:
            out = span // stride[i] + 1
        outs.append(out)
        extra.append(max(0, (out - 1) * stride[i] + dk - (sizes[i] + before[i] + after[i])))
    pad_before = [0] * data.ndim
    pad_after = [0] * data.ndim
    for i, a in enumerate(axes):
        pad_before[a], pad_after[a] = before[i], after[i] + extra[i]
    fill = tir_op.min_value(data.dtype) if pool_type == "max" else const(0, data.dtype)
    padded = pad(data, pad_before, pad_after, fill, name="pad_temp") if any(pad_before + pad_after) else data
    rs = [te.reduce_axis((0, k), name=f"rv{i}") for i, k in enumerate(kernel)]
    shape = list(data.shape)
    for i, a in enumerate(axes):
        shape[a] = const(outs[i], data.shape[a].dtype)

    def window(idx):
        src = list(idx)
        for i, a in enumerate(axes):
            src[a] = idx[a] * stride[i] + rs[i].var * dilation[i]
        return padded(*src)

    if pool_type == "max":
        return te.compute(tuple(shape), lambda *i: te.max(window(i), axis=rs), name="pool_max", tag="pool_max")
    total = te.compute(tuple(shape), lambda *i: te.sum(window(i), axis=rs), name="pool_sum", tag="pool_sum")

    def avg(*idx):
        count = None
        for i, a in enumerate(axes):
            start = idx[a] * stride[i] - before[i]
            if count_include_pad:
                c = _count(start, sizes[i], kernel[i], dilation[i], -before[i], sizes[i] + after[i])
            else:
                c = _count(start, sizes[i], kernel[i], dilation[i], 0, sizes[i])
            count = c if count is None else count * c
        return total(*idx) / tir_op.cast(tir_op.max(count, 1), data.dtype)

    return te.compute(tuple(shape), avg, name="pool_avg", tag="elemwise")


def pool1d(data, kernel, stride, dilation, padding, pool_type, ceil_mode=False, layout="NCW",
           count_include_pad=True) -> te.Tensor:
    return _pool(data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout, count_include_pad, 1)


def pool2d(data, kernel, stride, dilation, padding, pool_type, ceil_mode=False, layout="NCHW",
           count_include_pad=True) -> te.Tensor:
    """2-D max/avg pooling; ``padding`` is (top, left, bottom, right) or (h, w)."""
    return _pool(data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout, count_include_pad, 2)


def pool3d(data, kernel, stride, dilation, padding, pool_type, ceil_mode=False, layout="NCDHW",
           count_include_pad=True) -> te.Tensor:
    return _pool(data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout, count_include_pad, 3)


def _adaptive(data, output_size, pool_type, layout, n):
    what = f"topi.nn.adaptive_pool{'' if n == 2 else n}"
    if pool_type not in ("max", "avg"):
        raise ValueError(f"{what}: pool_type must be 'max' or 'avg', got {pool_type!r}")
    axes = _axes(layout, n, what)
    output_size = [int(o) for o in (output_size if isinstance(output_size, list | tuple) else [output_size] * n)]
    sizes = [get_const_int(data.shape[a]) for a in axes]
    # the widest window any output position gets
    widths = [max(-(-(o + 1) * s // osz) - (o * s // osz) for o in range(osz)) for s, osz in zip(sizes, output_size)]
    rs = [te.reduce_axis((0, w), name=f"rv{i}") for i, w in enumerate(widths)]
    shape = list(data.shape)
    for i, a in enumerate(axes):
        shape[a] = const(output_size[i], data.shape[a].dtype)

    def bounds(idx, i, a):
        start = tir_op.floordiv(idx[a] * sizes[i], output_size[i])
        end = tir_op.floordiv((idx[a] + 1) * sizes[i] + output_size[i] - 1, output_size[i])
        return start, end

    def reduce(reducer, idx):
        src, conds = list(idx), []
        for i, a in enumerate(axes):
            start, end = bounds(idx, i, a)
            src[a] = start + rs[i].var
            conds.append(rs[i].var < end - start)
        return reducer(data(*src), axis=rs, where=tir_op.all(*conds))

    if pool_type == "max":
        return te.compute(tuple(shape), lambda *i: reduce(te.max, i), name="adaptive_pool_max", tag="adaptive_pool_max")
    total = te.compute(tuple(shape), lambda *i: reduce(te.sum, i), name="adaptive_pool_sum", tag="adaptive_pool_sum")

    def avg(*idx):
        count = None
        for i, a in enumerate(axes):
            start, end = bounds(idx, i, a)
            count = end - start if count is None else count * (end - start)
        return total(*idx) / tir_op.cast(count, data.dtype)

    return te.compute(tuple(shape), avg, name="adaptive_pool_avg", tag="elemwise")


def adaptive_pool(data, output_size, pool_type, layout="NCHW") -> te.Tensor:
    """2-D adaptive pooling to ``output_size`` (an int or (oh, ow))."""
    return _adaptive(data, output_size, pool_type, layout, 2)


def adaptive_pool1d(data, output_size, pool_type, layout="NCW") -> te.Tensor:
    return _adaptive(data, output_size, pool_type, layout, 1)


def adaptive_pool3d(data, output_size, pool_type, layout="NCDHW") -> te.Tensor:
    return _adaptive(data, output_size, pool_type, layout, 3)


def global_pool(data, pool_type, layout="NCHW") -> te.Tensor:
    """Pooling over all of H and W to extent 1."""
    return _adaptive(data, 1, pool_type, layout, len(_SPATIAL_AXES.get(layout, (2, 3))))

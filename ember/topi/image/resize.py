"""Image resizing: ``resize1d`` / ``resize2d`` with nearest-neighbour, linear or cubic
interpolation and the ONNX/TVM coordinate transformation modes.

An output coordinate ``x`` maps to the input coordinate ``in_x`` by the mode
(``half_pixel``: ``(x + 0.5) * scale - 0.5`` …); nearest rounds it, linear blends the
two neighbours ``floor(in_x)`` and ``floor(in_x) + 1``, cubic the four from
``floor(in_x) - 1`` (one separable stage per axis) with Keys' cubic-convolution weights (coefficient ``cubic_alpha``:
-0.75 is PyTorch's, -0.5 ONNX's; ``cubic_exclude=1`` drops taps outside the input and
renormalises).  Indices are clamped to the input.
"""

from __future__ import annotations

from ember import te
from ember.ir import DataType, IntImm, const
from ember.tir import op as tir_op

__all__ = ["resize1d", "resize2d"]

_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn")
_ROUNDING = ("round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
_LAYOUT_AXES = {"NCHW": (2, 3), "NHWC": (1, 2), "NCW": (2,), "NWC": (1,)}


def _ratio(num, den, ftype):
    """``num / den`` as a float of ``ftype``: a constant when both sizes are known, else
    ``float(num) / float(den)`` computed at run time (symbolic sizes), as TVM writes it."""
    if isinstance(num, int) and isinstance(den, int):
        return const(num / den, ftype)
    return tir_op.cast(num, ftype) / tir_op.cast(den, ftype)


def _in_coord(x, in_size, out_size, mode: str, ftype):
    xf = tir_op.cast(x, ftype)
    scale = _ratio(in_size, out_size, ftype)
    if mode == "half_pixel":
        return (xf + const(0.5, ftype)) * scale - const(0.5, ftype)
    if mode in ("pytorch_half_pixel", "align_corners"):  # an output of one element reads 0
        if isinstance(out_size, int) and out_size == 1:
            return const(0.0, ftype)
        if mode == "align_corners":
            coord = xf * _ratio(in_size - 1, out_size - 1, ftype)
        else:
            coord = (xf + const(0.5, ftype)) * scale - const(0.5, ftype)
        if isinstance(out_size, int):
            return coord
        return tir_op.if_then_else(out_size > 1, coord, const(0.0, ftype))
    if mode == "asymmetric":
        return scale * xf
    return (xf + const(0.5, ftype)) * scale  # tf_half_pixel_for_nn


def _round(v, method: str, ftype):
    half = const(0.5, ftype)
    table = {
        "round": lambda: tir_op.round(v),
        "round_prefer_floor": lambda: tir_op.ceil(v - half),
        "round_prefer_ceil": lambda: tir_op.floor(v + half),
        "floor": lambda: tir_op.floor(v),
        "ceil": lambda: tir_op.ceil(v),
    }
    return table[method]()


def _clamp(i, size):
    return tir_op.max(tir_op.min(i, size - 1), 0)


def _size(s):
    """A size as a Python int when constant, else the symbolic expression (kept as it is)."""
    return int(s.value) if isinstance(s, IntImm) else s


def _cubic_weights(t, alpha: float, ftype):
    """Weights of the taps at offsets -1, 0, 1, 2 from floor(in_x), ``t`` the fraction."""
    a = const(alpha, ftype)
    one, two = const(1.0, ftype), const(2.0, ftype)

    def near(d):  # |d| <= 1
        return ((a + two) * d - (a + const(3.0, ftype))) * d * d + one

    def far(d):  # 1 < |d| < 2
        return ((a * d - const(5.0, ftype) * a) * d + const(8.0, ftype) * a) * d - const(4.0, ftype) * a

    return [far(t + one), near(t), near(one - t), far(two - t)]


def _resize(data, size, layout, method, mode, rounding_method, out_dtype, what, cubic_alpha=-0.5,
            cubic_exclude=0):
    axes = _LAYOUT_AXES.get(layout)
    if axes is None:
        raise ValueError(f"{what}: layout must be one of {sorted(_LAYOUT_AXES)}, got {layout!r}")
    if len(size) != len(axes):
        raise ValueError(f"{what}: size needs {len(axes)} entries for layout {layout!r}, got {list(size)}")
    if method not in ("nearest_neighbor", "linear", "cubic"):
        raise ValueError(f"{what}: method must be 'nearest_neighbor', 'linear' or 'cubic', got {method!r}")
    if mode not in _MODES:
        raise ValueError(f"{what}: coordinate_transformation_mode must be one of {_MODES}, got {mode!r}")
    if method == "nearest_neighbor" and not rounding_method:
        rounding_method = "round" if mode == "align_corners" else "floor"
    if method == "nearest_neighbor" and rounding_method not in _ROUNDING:
        raise ValueError(f"{what}: rounding_method must be one of {_ROUNDING}, got {rounding_method!r}")
    out_dtype = DataType(out_dtype or data.dtype)
    ftype = data.dtype if data.dtype.is_float else DataType("float32")
    in_sizes = [_size(data.shape[a]) for a in axes]
    out_sizes = [_size(s) for s in size]
    shape = list(data.shape)
    for a, s in zip(axes, out_sizes):
        shape[a] = const(s, data.shape[a].dtype) if isinstance(s, int) else s
    idx_dtype = data.shape[axes[0]].dtype

    def nearest(*idx):
        src = list(idx)
        for a, n_in, n_out in zip(axes, in_sizes, out_sizes):
            c = _round(_in_coord(idx[a], n_in, n_out, mode, ftype), rounding_method, ftype)
            src[a] = _clamp(tir_op.cast(c, idx_dtype), n_in)
        return tir_op.cast(data(*src), out_dtype)

    def linear(*idx):
        corners = [(list(idx), const(1.0, ftype))]
        for a, n_in, n_out in zip(axes, in_sizes, out_sizes):
            c = _in_coord(idx[a], n_in, n_out, mode, ftype)
            lo = tir_op.floor(c)
            frac = c - lo
            i0 = tir_op.cast(lo, idx_dtype)
            nxt = []
            for pos, w in corners:
                p0, p1 = list(pos), list(pos)
                p0[a], p1[a] = _clamp(i0, n_in), _clamp(i0 + 1, n_in)
                nxt.append((p0, w * (const(1.0, ftype) - frac)))
                nxt.append((p1, w * frac))
            corners = nxt
        value = None
        for pos, w in corners:
            term = tir_op.cast(data(*pos), ftype) * w
            value = term if value is None else value + term
        return tir_op.cast(value, out_dtype)

    def cubic_along(src, a, n_in, n_out, last):
        """One separable pass: 4 taps along axis ``a`` (PyTorch interpolates the same way)."""

        def f(*idx):
            c = _in_coord(idx[a], n_in, n_out, mode, ftype)
            lo = tir_op.floor(c)
            weights = _cubic_weights(c - lo, float(cubic_alpha), ftype)
            i0 = tir_op.cast(lo, idx_dtype)
            if cubic_exclude:
                inside = [tir_op.if_then_else(tir_op.all(i0 + k >= 0, i0 + k < n_in), w, const(0.0, ftype))
                          for k, w in zip((-1, 0, 1, 2), weights)]
                total = inside[0] + inside[1] + inside[2] + inside[3]
                weights = [w / total for w in inside]
            value = None
            for k, w in zip((-1, 0, 1, 2), weights):
                pos = list(idx)
                pos[a] = _clamp(i0 + k, n_in)
                term = tir_op.cast(src(*pos), ftype) * w
                value = term if value is None else value + term
            return tir_op.cast(value, out_dtype) if last else value

        out_shape = list(src.shape)
        out_shape[a] = const(n_out, data.shape[a].dtype) if isinstance(n_out, int) else n_out
        return te.compute(tuple(out_shape), f, name="resize" if last else f"resize_axis{a}",
                          tag="resize" if last else "")

    if method == "cubic":  # separable: the innermost axis first, one stage per axis
        out = data
        order = list(zip(axes, in_sizes, out_sizes))[::-1]
        for i, (a, n_in, n_out) in enumerate(order):
            out = cubic_along(out, a, n_in, n_out, i == len(order) - 1)
        return out

    fcompute = nearest if method == "nearest_neighbor" else linear
    return te.compute(tuple(shape), fcompute, name="resize", tag="resize")


def resize2d(data, roi, size, layout: str = "NCHW", method: str = "linear",
             coordinate_transformation_mode: str = "half_pixel", rounding_method: str = "",
             bicubic_alpha: float = -0.5, bicubic_exclude: int = 0, extrapolation_value: float = 0.0,
             out_dtype=None, output_shape=None) -> te.Tensor:
    """Resize the two spatial dims of ``data`` to ``size`` (oh, ow); ``roi`` is unused."""
    return _resize(data, size, layout, method, coordinate_transformation_mode, rounding_method,
                   out_dtype, "topi.image.resize2d", bicubic_alpha, bicubic_exclude)


def resize1d(data, roi, size, layout: str = "NCW", method: str = "linear",
             coordinate_transformation_mode: str = "half_pixel", rounding_method: str = "",
             bicubic_alpha: float = -0.5, bicubic_exclude: int = 0, extrapolation_value: float = 0.0,
             out_dtype=None, output_shape=None) -> te.Tensor:
    """Resize the spatial dim of ``data`` to ``size`` (ow,)."""
    return _resize(data, size, layout, method, coordinate_transformation_mode, rounding_method,
                   out_dtype, "topi.image.resize1d", bicubic_alpha, bicubic_exclude)

"""Legaliser of ``relax.image.resize2d`` (topi.image.resize2d to the inferred size)."""

from __future__ import annotations

from ember import topi

from .common import Legalizer, emit_te, out_dtype, out_shape

__all__ = ["TABLE"]


def _resize2d(bb, call):
    a = call.attrs
    shape, dtype = out_shape(call), out_dtype(call)
    size = [shape[a.layout.index("H")], shape[a.layout.index("W")]]

    def f(x):
        return topi.image.resize2d(x, a.roi, size, a.layout, a.method, a.coordinate_transformation_mode,
                                   a.rounding_method, a.cubic_alpha, a.cubic_exclude, a.extrapolation_value,
                                   dtype)

    return emit_te(bb, call, f, call.args[0])


TABLE: dict[str, Legalizer] = {"relax.image.resize2d": _resize2d}

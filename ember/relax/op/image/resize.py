"""``relax.image.resize2d``: resize the spatial dims of an image batch to ``size``."""

from __future__ import annotations

from ember.ir import DataType

from ...expr import Call, ShapeExpr
from ...struct_info import TensorStructInfo, shape_values
from .._infer import tensor
from ..attrs import Resize2DAttrs
from ..base import make_call, register, shape_arg, tensor_arg

__all__ = ["resize2d"]

_METHODS = ("nearest_neighbor", "linear", "cubic")
_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn")


def _infer_resize2d(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    a = call.attrs
    if a.method not in _METHODS:
        raise ValueError(f"relax.image.resize2d: method must be one of {list(_METHODS)}, got {a.method!r}")
    if a.coordinate_transformation_mode not in _MODES:
        raise ValueError(
            f"relax.image.resize2d: coordinate_transformation_mode must be one of {list(_MODES)}, "
            f"got {a.coordinate_transformation_mode!r}"
        )
    if sorted(a.layout) != sorted("NCHW"):
        raise ValueError(f"relax.image.resize2d: layout {a.layout!r} is not supported; expected a permutation of 'NCHW'")
    size = shape_arg(call, 1)
    if size is not None and len(size) != 2:
        raise ValueError(f"relax.image.resize2d: size must have 2 values (height, width), got {len(size)}")
    dtype = a.out_dtype or x.dtype
    values = shape_values(x)
    if values is None or size is None:
        return tensor(None, dtype, x.vdevice, 4)
    d = {c: values[a.layout.index(c)] for c in "NCHW"}
    d["H"], d["W"] = size
    return tensor([d[c] for c in a.layout], dtype, x.vdevice)


register("image.resize2d", _infer_resize2d, arg_names=("data", "size"))


def resize2d(data, size, roi=None, layout: str = "NCHW", method: str = "linear",
             coordinate_transformation_mode: str = "half_pixel", rounding_method: str = "round",
             cubic_alpha: float = -0.5, cubic_exclude: int = 0, extrapolation_value: float = 0.0,
             out_dtype=None) -> Call:
    """Resize to ``size`` = (height, width) with nearest, (bi)linear or cubic interpolation."""
    if isinstance(size, int):
        size = (size, size)
    if isinstance(size, list | tuple):
        size = ShapeExpr(size)
    roi = (0.0, 0.0, 0.0, 0.0) if roi is None else tuple(float(r) for r in roi)
    attrs = Resize2DAttrs(roi, layout, method, coordinate_transformation_mode, rounding_method, float(cubic_alpha),
                          int(cubic_exclude), float(extrapolation_value),
                          None if out_dtype in (None, "", "void") else DataType(out_dtype))
    return make_call("image.resize2d", [data, size], attrs)

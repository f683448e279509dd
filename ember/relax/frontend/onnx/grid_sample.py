"""ONNX GridSample (opsets 16, 20, 22): one ``topi.image.grid_sample`` kernel.

ONNX's grid is ``[N, *out, r]`` (x, y[, z] last); topi takes it channel-first, so the grid
is transposed first.  Modes: bilinear/linear, nearest, bicubic/cubic; padding zeros,
border, reflection; 2-D and 3-D inputs with static spatial sizes.
"""

from __future__ import annotations

from ember import topi
from ember.relax import op as R

from .common import ONNXImportError, shape_of, static_shape
from .registry import converter

_METHODS = {"bilinear": "bilinear", "linear": "bilinear", "nearest": "nearest", "bicubic": "bicubic",
            "cubic": "bicubic"}
_LAYOUTS = {2: "NCHW", 3: "NCDHW"}


@converter("GridSample", since=16)
def grid_sample(ctx, node, inputs, attrs):
    x, grid = inputs
    xs = static_shape(x)
    if xs is None or len(xs) - 2 not in _LAYOUTS:
        raise ONNXImportError(f"GridSample {node.name!r}: X must be a 4-D or 5-D tensor of static shape, "
                              f"got {shape_of(x)}")
    mode = attrs.get("mode", "bilinear" if ctx.opset < 20 else "linear")
    method = _METHODS.get(mode)
    if method is None:
        raise ONNXImportError(f"GridSample {node.name!r}: mode must be one of {sorted(_METHODS)}, got {mode!r}")
    rank = len(xs)
    grid_cf = ctx.emit(R.permute_dims(grid, [0, rank - 1] + list(range(1, rank - 1))))
    return ctx.bb.emit_te(topi.image.grid_sample, x, grid_cf, method, _LAYOUTS[rank - 2],
                          attrs.get("padding_mode", "zeros"), bool(attrs.get("align_corners", 0)))

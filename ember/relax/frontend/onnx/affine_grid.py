"""ONNX AffineGrid (opset 20+): the sampling grid of a batch of affine transforms.

The output ``[N, *spatial, r]`` is a matmul of a constant base grid (normalised x, y[, z]
coordinates and a 1 per output position) with each ``theta``.  The spatial extents come
from the ``size`` input when it is a constant; when ``size`` is known only at run time
they come from the output shape the model declares, and ``size`` is checked against
them at run time (``vm.builtin.tensor_to_shape`` + ``match_cast``).
"""

from __future__ import annotations

import numpy as np

from ember.relax import op as R

from ...expr import const
from .common import dtype_of, int_list, static_shape
from .registry import converter
from .shape_values import expect_values


def _axis_points(n: int, align_corners: bool) -> np.ndarray:
    """Normalised coordinates of ``n`` positions along one axis, in [-1, 1]."""
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (2.0 * np.arange(n) + 1.0) / n - 1.0


def base_grid(spatial: list[int], align_corners: bool) -> np.ndarray:
    """``[prod(spatial), r + 1]``: per position (row-major over ``spatial``) the
    coordinates x (last axis), y, [z] and a 1."""
    axes = [_axis_points(n, align_corners) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [m.reshape(-1) for m in reversed(mesh)]  # x varies along the last axis
    return np.stack(coords + [np.ones_like(coords[0])], axis=1)


@converter("AffineGrid", since=20)
def affine_grid(ctx, node, inputs, attrs):
    theta, size = inputs
    tshape = static_shape(theta)
    if tshape is None or len(tshape) != 3 or tshape[1] not in (2, 3) or tshape[2] != tshape[1] + 1:
        raise ctx.error(f"AffineGrid: theta must have a static shape [N, 2, 3] or [N, 3, 4], got {theta.struct_info}")
    rank = tshape[1]
    known = ctx.const_value(size)
    if known is not None:
        dims = int_list(known)
        if len(dims) != rank + 2:
            raise ctx.error(f"AffineGrid: size must have {rank + 2} values for theta {list(tshape)}, got {dims}")
        spatial = dims[2:]
    else:
        declared = ctx.declared_shape(node.output[0])
        if declared is None or len(declared) != rank + 2:
            raise ctx.error("AffineGrid: size is a run-time input, so the output's shape must be declared "
                            "in the model (static) to build the grid")
        spatial = declared[1:-1]
        expect_values(ctx, size, [declared[0], None] + spatial, "affine_size")
    dtype = dtype_of(theta) or "float32"
    base = const(base_grid(spatial, bool(attrs.get("align_corners", 0))).astype(dtype))
    theta_t = ctx.emit(R.permute_dims(theta, [0, 2, 1]))  # [N, r + 1, r]
    grid = ctx.emit(R.matmul(base, theta_t))  # [N, positions, r]
    return R.reshape(grid, [tshape[0], *spatial, rank])

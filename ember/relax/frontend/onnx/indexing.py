"""ONNX index-driven data movement: GatherND, ScatterND, ScatterElements, Scatter, OneHot.

Negative indices are wrapped here (``idx + dim`` where ``idx < 0``) so the Relax ops see
in-range indices; GatherND's ``batch_dims`` becomes leading index coordinates (a
constant grid of batch positions concatenated in front of each index tuple).
"""

from __future__ import annotations

import numpy as np

from ember import relax
from ember.relax import op as R

from . import packed
from .common import ONNXImportError, dtype_of, ndim_of, norm_axis, shape_of, static_shape
from .registry import converter

_REDUCTION = {"none": "update", "add": "add", "mul": "mul", "max": "max", "min": "min"}


def _wrap_negative(ctx, idx, dims):
    """``idx`` with negative entries counted from the end of ``dims`` (per last-axis slot)."""
    dt = dtype_of(idx)
    bound = relax.const(np.asarray(dims, dtype=dt))
    neg = ctx.emit(R.less(idx, relax.const(np.asarray(0, dtype=dt))))
    return ctx.emit(R.where(neg, ctx.emit(R.add(idx, bound)), idx))


def _static(x, what: str):
    shape = static_shape(x)
    if shape is None:
        raise ONNXImportError(f"{what}: the shape of data must be known at import")
    return shape


def _index_shape(idx, what: str, batch_dims: int = 0):
    """Indices' shape: the index-tuple length (last dim) and batch dims must be static."""
    dims = shape_of(idx)
    if dims is None or not isinstance(dims[-1], int) or not all(isinstance(d, int) for d in dims[:batch_dims]):
        raise ONNXImportError(f"{what}: the last dim of indices (and batch dims) must be known at import")
    return dims


@converter("GatherND", since=11)
def gather_nd(ctx, node, inputs, attrs):
    data, idx = inputs
    b = int(attrs.get("batch_dims", 0))
    dshape, ishape = _static(data, "GatherND"), _index_shape(idx, "GatherND", b)
    m = ishape[-1]
    if b + m > len(dshape):
        raise ONNXImportError(f"GatherND: batch_dims={b} plus index length {m} exceed data rank {len(dshape)}")
    idx = ctx.emit(R.astype(idx, "int64")) if dtype_of(idx) != "int64" else idx
    idx = _wrap_negative(ctx, idx, dshape[b:b + m])
    if b:
        grid = np.stack(np.meshgrid(*[np.arange(d) for d in ishape[:b]], indexing="ij"), axis=-1)
        grid = grid.reshape(tuple(ishape[:b]) + (1,) * (len(ishape) - 1 - b) + (b,))
        if not all(isinstance(d, int) for d in ishape):
            raise ONNXImportError("GatherND: batch_dims > 0 needs the indices' shape at import")
        grid = np.broadcast_to(grid, tuple(ishape[:-1]) + (b,)).astype("int64")
        idx = ctx.emit(R.concat([relax.const(np.ascontiguousarray(grid)), idx], axis=-1))
    return R.gather_nd(data, idx)


@converter("ScatterND", since=11)
def scatter_nd(ctx, node, inputs, attrs):
    data, idx, updates = inputs
    reduction = attrs.get("reduction", "none")
    if reduction not in _REDUCTION:
        raise ONNXImportError(f"ScatterND: reduction must be one of {sorted(_REDUCTION)}, got {reduction!r}")
    dshape, ishape = _static(data, "ScatterND"), _index_shape(idx, "ScatterND")
    idx = _wrap_negative(ctx, idx, dshape[: ishape[-1]])
    return R.scatter_nd(data, idx, updates, _REDUCTION[reduction])


@converter("ScatterElements", since=11)
def scatter_elements(ctx, node, inputs, attrs):
    data, idx, updates = inputs
    reduction = attrs.get("reduction", "none")
    if reduction not in _REDUCTION:
        raise ONNXImportError(f"ScatterElements: reduction must be one of {sorted(_REDUCTION)}, got {reduction!r}")
    axis = norm_axis(int(attrs.get("axis", 0)), ndim_of(data), "ScatterElements axis")
    return R.scatter_elements(data, idx, updates, axis, _REDUCTION[reduction])


@converter("Scatter", since=9)
def scatter(ctx, node, inputs, attrs):
    data, idx, updates = inputs
    axis = norm_axis(int(attrs.get("axis", 0)), ndim_of(data), "Scatter axis")
    return R.scatter_elements(data, idx, updates, axis, "update")


@converter("OneHot", since=9)
def one_hot(ctx, node, inputs, attrs):
    """``where(expand_dims(idx, axis) == positions, on, off)``; ``positions`` is a constant
    ``arange(depth)``, or, when depth is known only at run time, a packed ``arange`` whose
    length becomes a fresh symbolic dim."""
    indices, depth, values = inputs
    rank = ndim_of(indices)
    axis = norm_axis(int(attrs.get("axis", -1)), rank + 1, "OneHot axis")
    idx = indices if dtype_of(indices) == "int64" else ctx.emit(R.astype(indices, "int64"))
    depth_value = ctx.const_value(depth)
    if depth_value is not None:
        n = int(np.asarray(depth_value).reshape(-1)[0])
        positions = relax.const(np.arange(n, dtype="int64"))
        depth64 = relax.const(np.asarray(n, "int64"))
    else:
        from .sorting import fresh_dim, packed_result

        (positions,) = packed_result(ctx, packed.NAMES["arange"], [depth], [[fresh_dim("onehot_depth")]], ["int64"])
        depth64 = ctx.emit(R.reshape(ctx.emit(R.astype(depth, "int64")), []))
    neg = ctx.emit(R.less(idx, relax.const(np.asarray(0, "int64"))))
    idx = ctx.emit(R.where(neg, ctx.emit(R.add(idx, depth64)), idx))
    dims = [1] * (rank + 1)
    dims[axis] = -1
    hot = ctx.emit(R.equal(ctx.emit(R.expand_dims(idx, axis)), ctx.emit(R.reshape(positions, dims))))
    off = ctx.emit(R.take(values, relax.const(np.asarray(0, "int64")), axis=0))
    on = ctx.emit(R.take(values, relax.const(np.asarray(1, "int64")), axis=0))
    return R.where(hot, on, off)


@converter("TensorScatter", since=24)
def tensor_scatter(ctx, node, inputs, attrs):
    """KV-cache update: ``update`` written into ``past_cache`` along ``axis`` starting at
    ``write_indices[b]`` (wrapping modulo the cache length in ``circular`` mode), as a
    scatter_elements with an index tensor built from ``write_indices + arange(seq)``."""
    past, update = inputs[0], inputs[1]
    write = inputs[2] if len(inputs) > 2 else None
    mode = attrs.get("mode", "linear")
    if mode not in ("linear", "circular"):
        raise ONNXImportError(f"TensorScatter: mode must be 'linear' or 'circular', got {mode!r}")
    pshape, ushape = _static(past, "TensorScatter"), _static(update, "TensorScatter")
    rank = len(pshape)
    axis = norm_axis(int(attrs.get("axis", -2)), rank, "TensorScatter axis")
    if axis == 0:
        raise ONNXImportError("TensorScatter: axis must not be the batch axis 0")
    steps = np.arange(ushape[axis], dtype="int64").reshape([-1 if i == axis else 1 for i in range(rank)])
    idx = relax.const(steps)
    if write is not None:
        start = ctx.emit(R.reshape(ctx.emit(R.astype(write, "int64")), [pshape[0]] + [1] * (rank - 1)))
        idx = ctx.emit(R.add(idx, start))
    if mode == "circular":
        idx = ctx.emit(R.floor_mod(idx, relax.const(np.asarray(pshape[axis], "int64"))))
    idx = ctx.emit(R.broadcast_to(idx, list(ushape)))
    return R.scatter_elements(past, idx, update, axis, "update")

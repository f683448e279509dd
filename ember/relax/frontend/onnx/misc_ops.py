"""ONNX ops composed from existing Relax ops: ReverseSequence, CumSum, CumProd, Compress, Det,
MaxUnpool, and DeformConv (one ``topi.nn.deformable_conv2d_nchw`` kernel).

- ReverseSequence gathers along the time axis with indices ``len-1-t`` inside each row's
  length (``t`` past it), so sequence lengths may be run-time values.
- CumSum/CumProd: ``relax.cumsum/cumprod``; ``reverse`` flips around them.  A run-time
  axis scans along every axis and selects the requested result.
- Compress: a known condition is a ``take`` of constant positions; a run-time one finds
  its positions with the packed NonZero (data-dependent length).
- Det: the Leibniz sum over static matrices up to 4x4 (batched over leading dims).
- MaxUnpool: scatters into a zero tensor at the flat indices MaxPool gave (over the whole
  N x C x spatial tensor); ``output_shape``, when given, must be known at import.
"""

from __future__ import annotations

import itertools

import numpy as np

from ember import topi
from ember.relax import op as R

from ...expr import ShapeExpr, const
from .common import ONNXImportError, dtype_of, norm_axis, shape_of, static_shape
from .registry import converter

__all__ = ["reverse_sequence"]


def reverse_sequence(ctx, x, lens, batch_axis: int, time_axis: int):
    """``x`` with each batch row's first ``lens[b]`` steps along ``time_axis`` reversed."""
    dims = shape_of(x)
    rank = len(dims)
    t_shape = [1] * rank
    t_shape[time_axis] = dims[time_axis]
    b_shape = [1] * rank
    b_shape[batch_axis] = dims[batch_axis]
    steps = ctx.emit(R.reshape(ctx.emit(R.arange(0, dims[time_axis], 1, "int64")), ShapeExpr(t_shape)))
    lens = ctx.emit(R.reshape(ctx.emit(R.astype(lens, "int64")), ShapeExpr(b_shape)))
    flipped = ctx.emit(R.subtract(ctx.emit(R.subtract(lens, const(np.array(1, "int64")))), steps))
    index = ctx.emit(R.where(ctx.emit(R.less(steps, lens)), flipped, steps))
    index = ctx.emit(R.broadcast_to(index, ShapeExpr(dims)))
    return ctx.emit(R.gather_elements(x, index, axis=time_axis))


@converter("ReverseSequence", since=10)
def reverse_sequence_op(ctx, node, inputs, attrs):
    x, lens = inputs
    rank = x.struct_info.ndim
    batch_axis = norm_axis(int(attrs.get("batch_axis", 1)), rank, "batch_axis")
    time_axis = norm_axis(int(attrs.get("time_axis", 0)), rank, "time_axis")
    return reverse_sequence(ctx, x, lens, batch_axis, time_axis)


def _scan_along(ctx, x, axis: int, fn, reverse: bool, exclusive: bool):
    if reverse:
        x = ctx.emit(R.flip(x, axis))
    y = ctx.emit(fn(x, axis=axis, exclusive=exclusive))
    return ctx.emit(R.flip(y, axis)) if reverse else y


def _scan_op(ctx, node, inputs, attrs, fn):
    x, axis = inputs
    rank = x.struct_info.ndim
    reverse, exclusive = bool(attrs.get("reverse", 0)), bool(attrs.get("exclusive", 0))
    value = ctx.const_value(axis)
    if value is None and rank == 1:
        value = np.array(0)
    if value is not None:
        return _scan_along(ctx, x, norm_axis(int(np.asarray(value).reshape(-1)[0]), rank), fn, reverse, exclusive)
    if rank < 1:
        raise ONNXImportError(f"{node.op_type} {node.name!r}: the input must have rank >= 1")
    # a run-time axis: scan along every axis and pick the requested one
    a = ctx.emit(R.reshape(ctx.emit(R.astype(axis, "int64")), ShapeExpr([])))
    a = ctx.emit(R.floor_mod(a, const(np.array(rank, "int64"))))
    result = _scan_along(ctx, x, rank - 1, fn, reverse, exclusive)
    for k in range(rank - 2, -1, -1):
        pick = ctx.emit(R.equal(a, const(np.array(k, "int64"))))
        result = ctx.emit(R.where(pick, _scan_along(ctx, x, k, fn, reverse, exclusive), result))
    return result


@converter("CumSum", since=11)
def cumsum(ctx, node, inputs, attrs):
    return _scan_op(ctx, node, inputs, attrs, R.cumsum)


@converter("CumProd", since=26)
def cumprod(ctx, node, inputs, attrs):
    return _scan_op(ctx, node, inputs, attrs, R.cumprod)


@converter("Compress", since=9)
def compress(ctx, node, inputs, attrs):
    x, condition = inputs
    axis = attrs.get("axis")
    if axis is None:
        x = ctx.emit(R.reshape(x, ShapeExpr([-1])))
        axis = 0
    axis = norm_axis(int(axis), x.struct_info.ndim)
    cond = ctx.const_value(condition)
    if cond is not None:
        picked = np.nonzero(np.asarray(cond).reshape(-1).astype(bool))[0].astype("int64")
        dims = shape_of(x)
        if isinstance(dims[axis], int):
            picked = picked[picked < dims[axis]]
        return ctx.emit(R.take(x, const(picked), axis=axis))
    # a run-time condition: its non-zero positions (a data-dependent count) through B2's packed NonZero
    from . import packed
    from .sorting import fresh_dim, packed_result

    flat = ctx.emit(R.reshape(condition, ShapeExpr([-1])))
    (where,) = packed_result(ctx, packed.NAMES["nonzero"], [flat], [[1, fresh_dim("compress_count")]], ["int64"])
    picked = ctx.emit(R.reshape(where, ShapeExpr([-1])))
    return ctx.emit(R.take(x, picked, axis=axis))


def _element(ctx, m, i: int, j: int):
    """``m[..., i, j]`` of a [..., n, n] tensor."""
    rank = m.struct_info.ndim
    e = ctx.emit(R.strided_slice(m, [rank - 2, rank - 1], [i, j], [i + 1, j + 1]))
    return ctx.emit(R.squeeze(e, [rank - 2, rank - 1]))


@converter("Det", since=11)
def det(ctx, node, inputs, attrs):
    x = inputs[0]
    shape = static_shape(x)
    if shape is None or len(shape) < 2 or shape[-1] != shape[-2] or shape[-1] > 4:
        raise ONNXImportError(f"Det {node.name!r}: square matrices of static size up to 4x4 are supported, "
                              f"got shape {shape_of(x)}")
    n = shape[-1]
    cells = [[_element(ctx, x, i, j) for j in range(n)] for i in range(n)]
    total = None
    for perm in itertools.permutations(range(n)):  # Leibniz formula: n! products
        term = cells[0][perm[0]]
        for i in range(1, n):
            term = ctx.emit(R.multiply(term, cells[i][perm[i]]))
        inversions = sum(1 for a, b in itertools.combinations(perm, 2) if a > b)
        if total is None:
            total = term if inversions % 2 == 0 else ctx.emit(R.negative(term))
        else:
            total = ctx.emit((R.subtract if inversions % 2 else R.add)(total, term))
    return total



def _reindex(ctx, flat, default: list[int], out: list[int]):
    """MaxPool's flat indices (positions in the unpadded input, ``default``'s shape) moved
    to the same spatial coordinates in the larger ``out``."""
    def c(v):
        return const(np.array(v, "int64"))

    per_default = int(np.prod(default[2:]))
    plane = ctx.emit(R.floor_divide(flat, c(per_default)))
    rest = ctx.emit(R.floor_mod(flat, c(per_default)))
    moved = ctx.emit(R.multiply(plane, c(int(np.prod(out[2:])))))
    for i in range(2, len(default)):
        inner = int(np.prod(default[i + 1:]))
        coord = ctx.emit(R.floor_mod(R.floor_divide(rest, c(inner)), c(default[i])))
        moved = ctx.emit(R.add(moved, R.multiply(coord, c(int(np.prod(out[i + 1:]))))))
    return moved


@converter("MaxUnpool", since=9)
def max_unpool(ctx, node, inputs, attrs):
    x, indices = inputs[0], inputs[1]
    shape_in = inputs[2] if len(inputs) > 2 else None
    dims = static_shape(x)
    if dims is None:
        raise ONNXImportError(f"MaxUnpool {node.name!r}: X needs a static shape, got {shape_of(x)}")
    kernel = [int(k) for k in attrs["kernel_shape"]]
    r = len(kernel)
    strides = [int(v) for v in attrs.get("strides", [1] * r)]
    pads = [int(v) for v in attrs.get("pads", [0] * (2 * r))]
    default = list(dims[:2]) + [(dims[2 + i] - 1) * strides[i] - pads[i] - pads[r + i] + kernel[i]
                                for i in range(r)]
    if shape_in is not None:
        value = ctx.const_value(shape_in)
        if value is None:
            # a run-time output_shape: the model's declared output shape, checked at run time
            out = ctx.declared_shape(node.output[0])
            if out is None:
                raise ONNXImportError(f"MaxUnpool {node.name!r}: output_shape is a run-time input and the "
                                      "output's shape is not declared in the model")
            from .shape_values import expect_values

            expect_values(ctx, shape_in, out, "unpool_shape")
        else:
            out = [int(v) for v in np.asarray(value).reshape(-1)]
    else:
        out = default
    total = int(np.prod(out))
    flat_x = ctx.emit(R.reshape(x, ShapeExpr([-1])))
    flat_i = ctx.emit(R.reshape(ctx.emit(R.astype(indices, "int64")), ShapeExpr([-1])))
    if out != default:
        flat_i = _reindex(ctx, flat_i, default, out)
    zeros = ctx.emit(R.zeros(ShapeExpr([total]), dtype_of(x)))
    scattered = ctx.emit(R.scatter_elements(zeros, flat_i, flat_x, axis=0))
    return ctx.emit(R.reshape(scattered, ShapeExpr(out)))


@converter("DeformConv", since=19)
def deform_conv(ctx, node, inputs, attrs):
    inputs = list(inputs) + [None] * (5 - len(inputs))
    x, w, offset, bias, mask = inputs
    if x.struct_info.ndim != 4:
        raise ONNXImportError(f"DeformConv {node.name!r}: only 2-D (NCHW) inputs are supported, got rank "
                              f"{x.struct_info.ndim}")
    pads = [int(p) for p in attrs.get("pads", [0, 0, 0, 0])]
    y = ctx.bb.emit_te(topi.nn.deformable_conv2d_nchw, x, offset, w, attrs.get("strides", [1, 1]), pads[:2],
                       attrs.get("dilations", [1, 1]), int(attrs.get("offset_group", 1)),
                       int(attrs.get("group", 1)), None, mask)
    if bias is not None:
        y = ctx.emit(R.add(y, ctx.emit(R.reshape(bias, ShapeExpr([1, -1, 1, 1])))))
    return y

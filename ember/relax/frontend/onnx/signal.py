"""ONNX signal ops: DFT (opsets 17 and 20) and STFT, as matmuls with DFT matrices.

The transform length must be known at import: the cosine and sine matrices are numpy
constants, so a DFT is two matmuls per input part (real, imaginary).  ``onesided``
keeps the first ``L//2+1`` bins; ``inverse`` with ``onesided`` is the inverse real FFT
(Hermitian half spectrum in, real signal of length ``2*(n-1)`` or ``dft_length`` out).
Opset 20's ``axis`` input may be a run-time value when every candidate axis gives the
same output shape (all candidates are computed and one is selected).  STFT needs the
frame length known at import; a run-time ``frame_step`` gives a run-time frame count.
HannWindow/HammingWindow/BlackmanWindow/MelWeightMatrix with constant inputs are
evaluated at import by the importer; with run-time sizes their output shape would
depend on input values, which is not supported.
"""

from __future__ import annotations

import numpy as np

from ember.relax import op as R

from ...expr import ShapeExpr, const
from .common import ONNXImportError, dtype_of, np_dtype, shape_of
from .registry import converter


def _mat(values: np.ndarray, dtype: str):
    return const(values.astype(np_dtype(dtype)))


def _fit_last(ctx, x, length: int):
    """``x`` zero-padded or cut to ``length`` along its last axis."""
    n = shape_of(x)[-1]
    if n == length:
        return x
    if n > length:
        return ctx.emit(R.strided_slice(x, [x.struct_info.ndim - 1], [0], [length]))
    pad = [0, 0] * (x.struct_info.ndim - 1) + [0, length - n]
    return ctx.emit(R.nn.pad(x, pad))


def _dft_last(ctx, node, re, im, length: int | None, inverse: bool, onesided: bool):
    """DFT along the last axis of ``re`` (and ``im``, None for a real signal): (re, im) or
    a real result (im None) for the inverse real FFT."""
    dtype = dtype_of(re)
    n = shape_of(re)[-1]
    if not isinstance(n, int):
        raise ONNXImportError(f"{node.op_type} {node.name!r}: the transformed axis must have a static length")
    if inverse and onesided:
        size = int(length) if length is not None else 2 * (n - 1)
        half = size // 2 + 1
        re = _fit_last(ctx, re, half)
        im = _fit_last(ctx, im, half) if im is not None else None
        k = np.arange(half)[:, None]
        t = np.arange(size)[None, :]
        weight = np.where((k == 0) | ((size % 2 == 0) & (k == size // 2)), 1.0, 2.0) / size
        angle = 2 * np.pi * k * t / size
        y = ctx.emit(R.matmul(re, _mat(weight * np.cos(angle), dtype)))
        if im is not None:
            y = ctx.emit(R.subtract(y, ctx.emit(R.matmul(im, _mat(weight * np.sin(angle), dtype)))))
        return y, None
    size = int(length) if length is not None else n
    re = _fit_last(ctx, re, size)
    im = _fit_last(ctx, im, size) if im is not None else None
    bins = size // 2 + 1 if onesided else size
    angle = 2 * np.pi * np.arange(size)[:, None] * np.arange(bins)[None, :] / size
    scale = 1.0 / size if inverse else 1.0
    cos, sin = _mat(np.cos(angle) * scale, dtype), _mat(np.sin(angle) * scale, dtype)
    sign = 1.0 if inverse else -1.0  # e^{sign * i * angle}
    out_re = ctx.emit(R.matmul(re, cos))
    out_im = ctx.emit(R.matmul(re, sin))
    if sign < 0:
        out_im = ctx.emit(R.negative(out_im))
    if im is not None:
        im_cos, im_sin = ctx.emit(R.matmul(im, cos)), ctx.emit(R.matmul(im, sin))
        out_re = ctx.emit(R.subtract(out_re, im_sin) if sign > 0 else R.add(out_re, im_sin))
        out_im = ctx.emit(R.add(out_im, im_cos))
    return out_re, out_im


def _dft_axis(ctx, node, x, axis: int, length, inverse: bool, onesided: bool):
    dtype = dtype_of(x)
    if dtype in ("float16", "bfloat16", "float32"):  # sums of many products: accumulate in float64
        return ctx.emit(R.astype(_dft_axis(ctx, node, ctx.emit(R.astype(x, "float64")), axis, length, inverse,
                                           onesided), dtype))
    rank = x.struct_info.ndim
    comp = shape_of(x)[-1]
    if comp not in (1, 2):
        raise ONNXImportError(f"{node.op_type} {node.name!r}: the last axis must have length 1 (real) or 2 "
                              f"(complex), got {comp}")
    perm = [d for d in range(rank - 1) if d != axis] + [axis, rank - 1]
    moved = ctx.emit(R.permute_dims(x, perm)) if perm != list(range(rank)) else x
    parts = [ctx.emit(R.squeeze(ctx.emit(R.strided_slice(moved, [rank - 1], [i], [i + 1])), [rank - 1]))
             for i in range(comp)]
    re, im = parts[0], (parts[1] if comp == 2 else None)
    out_re, out_im = _dft_last(ctx, node, re, im, length, inverse, onesided)
    pieces = [ctx.emit(R.expand_dims(out_re, rank - 1))]
    if out_im is not None:
        pieces.append(ctx.emit(R.expand_dims(out_im, rank - 1)))
    y = ctx.emit(R.concat(pieces, axis=rank - 1)) if len(pieces) > 1 else pieces[0]
    if perm == list(range(rank)):
        return y
    back = [perm.index(d) for d in range(rank)]
    return ctx.emit(R.permute_dims(y, back))


def _known_int(ctx, node, x, what: str):
    if x is None:
        return None
    value = ctx.const_value(x)
    if value is None:
        raise ONNXImportError(f"{node.op_type} {node.name!r}: {what} must be known at import")
    return int(np.asarray(value).reshape(-1)[0])


def _dft(ctx, node, x, axis_expr, axis_attr, length, attrs):
    inverse, onesided = bool(attrs.get("inverse", 0)), bool(attrs.get("onesided", 0))
    rank = x.struct_info.ndim
    if axis_expr is None or ctx.const_value(axis_expr) is not None:
        axis = axis_attr if axis_expr is None else _known_int(ctx, node, axis_expr, "axis")
        axis = axis + rank if axis < 0 else axis
        if not 0 <= axis <= rank - 2:
            raise ONNXImportError(f"DFT {node.name!r}: axis must be a signal axis (not the last one), got {axis}")
        return _dft_axis(ctx, node, x, axis, length, inverse, onesided)
    # a run-time axis: pick among the candidates (a select when their shapes agree, else
    # a chain of Relax Ifs whose result has a run-time shape)
    a = ctx.emit(R.reshape(ctx.emit(R.astype(axis_expr, "int64")), ShapeExpr([])))
    a = ctx.emit(R.where(ctx.emit(R.less(a, const(np.array(0, "int64")))),
                         ctx.emit(R.add(a, const(np.array(rank, "int64")))), a))
    smallest = 2 if inverse and onesided else 1  # an inverse real FFT of one bin has no length
    candidates = [k for k in range(rank - 1) if shape_of(x)[k] >= smallest]
    results = [_dft_axis(ctx, node, x, k, length, inverse, onesided) for k in candidates]
    if len({tuple(shape_of(r)) for r in results}) == 1:
        out = results[-1]
        for k, r in zip(candidates[-2::-1], results[-2::-1]):
            out = ctx.emit(R.where(ctx.emit(R.equal(a, const(np.array(k, "int64")))), r, out))
        return out
    if ctx.in_dataflow:
        raise ONNXImportError(f"DFT {node.name!r}: a run-time axis whose candidates differ in shape needs "
                              "control flow, which a dataflow block cannot hold")
    from .control_flow import select_at_run_time

    return select_at_run_time(ctx, a, candidates, lambda k: _dft_axis(ctx, node, x, k, length, inverse, onesided))


@converter("DFT", since=17)
def dft17(ctx, node, inputs, attrs):
    length = _known_int(ctx, node, inputs[1] if len(inputs) > 1 else None, "dft_length")
    return _dft(ctx, node, inputs[0], None, int(attrs.get("axis", 1)), length, attrs)


@converter("DFT", since=20)
def dft20(ctx, node, inputs, attrs):
    length = _known_int(ctx, node, inputs[1] if len(inputs) > 1 else None, "dft_length")
    axis = inputs[2] if len(inputs) > 2 else None
    return _dft(ctx, node, inputs[0], axis, -2, length, attrs)


@converter("STFT", since=17)
def stft(ctx, node, inputs, attrs):
    inputs = list(inputs) + [None] * (4 - len(inputs))
    signal, step, window, frame_length = inputs
    length = _known_int(ctx, node, frame_length, "frame_length")
    if length is None:
        if window is None or shape_of(window) is None or not isinstance(shape_of(window)[0], int):
            raise ONNXImportError(f"STFT {node.name!r}: needs a frame_length or a window of static length")
        length = shape_of(window)[0]
    dims = shape_of(signal)
    if dims is None or len(dims) != 3 or not isinstance(dims[1], int):
        raise ONNXImportError(f"STFT {node.name!r}: the signal must be [batch, length, 1|2] with a static length")
    known_step = ctx.const_value(step)
    if known_step is not None:
        step = int(np.asarray(known_step).reshape(-1)[0])
        frames = (dims[1] - length) // step + 1
        index = const((np.arange(frames)[:, None] * step + np.arange(length)[None, :]).astype("int64"))
    else:  # a run-time step: the frame count is a value, so the frame numbers come from a packed arange
        from . import packed
        from .sorting import fresh_dim, packed_result

        step = ctx.emit(R.reshape(ctx.emit(R.astype(step, "int64")), ShapeExpr([])))
        count = ctx.emit(R.add(ctx.emit(R.floor_divide(const(np.array(dims[1] - length, "int64")), step)),
                               const(np.array(1, "int64"))))
        (starts,) = packed_result(ctx, packed.NAMES["arange"], [count], [[fresh_dim("stft_frames")]], ["int64"])
        starts = ctx.emit(R.multiply(ctx.emit(R.expand_dims(starts, 1)), step))
        index = ctx.emit(R.add(starts, const(np.arange(length, dtype="int64")[None, :])))
    framed = ctx.emit(R.take(signal, index, axis=1))  # [batch, frames, length, comp]
    if window is not None:
        framed = ctx.emit(R.multiply(framed, ctx.emit(R.reshape(window, ShapeExpr([length, 1])))))
    onesided = bool(attrs.get("onesided", 1))
    return _dft_axis(ctx, node, framed, 2, None, False, onesided)

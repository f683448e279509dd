"""ONNX MelWeightMatrix (opset 17+) with run-time inputs.

With constant inputs the importer folds the node at import.  With run-time ones the
matrix's shape ``[dft_length // 2 + 1, num_mel_bins]`` depends on input values, so it is
a numpy-backed packed function (``ember.onnx.mel_weight_matrix``) whose result is
``match_cast`` to the output shape the model declares (checked at run time) or to fresh
symbolic dims.

The matrix: ``num_mel_bins + 2`` points evenly spaced on the mel scale
(``2595 * log10(1 + hz / 700)``) from the lower to the upper edge — spaced by the span
over ``num_mel_bins + 2`` as ONNX's reference does — mapped back to hertz and to FFT bin
numbers ``floor((dft_length + 1) * hz / sample_rate)``; mel bin ``i`` is a triangle
rising from point ``i`` to ``i + 1`` and falling to ``i + 2``.
"""

from __future__ import annotations

import numpy as np

from ember import relax, tir
from ember.relax import op as R
from ember.runtime import register_func

from .common import onnx_dtype
from .registry import converter

_NAME = "ember.onnx.mel_weight_matrix"


def mel_weight_matrix(bins: int, dft_length: int, rate: int, low_hz: float, high_hz: float) -> np.ndarray:
    """The ``[dft_length // 2 + 1, bins]`` float64 matrix (see module docs)."""
    def to_mel(hz):
        return 2595.0 * np.log10(1.0 + hz / 700.0)

    low, high = to_mel(float(low_hz)), to_mel(float(high_hz))
    mels = low + np.arange(bins + 2) * ((high - low) / (bins + 2))
    hz = 700.0 * (np.power(10.0, mels / 2595.0) - 1.0)
    points = np.floor((dft_length + 1) * hz / rate).astype("int64")
    out = np.zeros((dft_length // 2 + 1, bins))
    for i in range(bins):
        left, center, right = points[i], points[i + 1], points[i + 2]
        if center == left:
            out[center, i] = 1.0
        else:
            for j in range(left, center + 1):
                out[j, i] = (j - left) / (center - left)
        for j in range(center, right):
            out[j, i] = (right - j) / (right - center)
    return out


@register_func(_NAME, override=True)
def _mel(bins, dft_length, rate, low_hz, high_hz, dtype_code):
    from ember.runtime import ndarray

    values = [np.asarray(v.numpy()).reshape(()) for v in (bins, dft_length, rate, low_hz, high_hz)]
    matrix = mel_weight_matrix(int(values[0]), int(values[1]), int(values[2]), float(values[3]), float(values[4]))
    return ndarray.array(matrix.astype(onnx_dtype(int(dtype_code))))


@converter("MelWeightMatrix", since=17)
def mel_weight_matrix_op(ctx, node, inputs, attrs):
    code = int(attrs.get("output_datatype", 1))
    dtype = onnx_dtype(code)
    call = R.call_pure_packed(_NAME, *inputs, relax.PrimValue(code),
                              sinfo_args=relax.TensorStructInfo(None, dtype, ndim=2))
    value = ctx.emit(call)
    declared = ctx.declared_shape(node.output[0])
    dims = declared or [tir.Var("mel_rows", "int64"), tir.Var("mel_bins", "int64")]
    return ctx.bb.match_cast(value, relax.TensorStructInfo(dims, dtype))

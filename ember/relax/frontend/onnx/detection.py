"""ONNX detection operators: NonMaxSuppression and RoiAlign, both through the numpy-backed
packed functions of ``packed.py`` (see there why: NMS's output length depends on the
scores, RoiAlign's sampling grid on the ROI sizes)."""

from __future__ import annotations

import numpy as np

from ember import relax
from ember.relax import op as R

from . import packed
from .common import ONNXImportError, dtype_of, static_shape
from .registry import converter
from .sorting import fresh_dim, packed_result


@converter("NonMaxSuppression", since=10)
def non_max_suppression(ctx, node, inputs, attrs):
    boxes, scores = inputs[0], inputs[1]
    rest = list(inputs[2:]) + [None] * (5 - len(inputs))
    empty_i = relax.const(np.zeros((0,), "int64"))
    empty_f = relax.const(np.zeros((0,), "float32"))
    max_out = rest[0] if rest[0] is not None else empty_i
    iou = rest[1] if rest[1] is not None else empty_f
    score = rest[2] if rest[2] is not None else empty_f
    center = relax.PrimValue(int(attrs.get("center_point_box", 0)))
    (out,) = packed_result(ctx, packed.NAMES["nms"], [boxes, scores, max_out, iou, score, center],
                           [[fresh_dim("nms_selected"), 3]], ["int64"])
    return out


@converter("RoiAlign", since=10)
def roi_align(ctx, node, inputs, attrs):
    x, rois, batch_indices = inputs
    xs, rs = static_shape(x), static_shape(rois)
    if xs is None or rs is None:
        raise ONNXImportError("RoiAlign: the shapes of X and rois must be known at import")
    mode = attrs.get("mode", "avg")
    if mode not in ("avg", "max"):
        raise ONNXImportError(f"RoiAlign: mode must be 'avg' or 'max', got {mode!r}")
    ctm = attrs.get("coordinate_transformation_mode", "half_pixel" if ctx.opset >= 16 else "output_half_pixel")
    if ctm not in ("half_pixel", "output_half_pixel"):
        raise ONNXImportError(f"RoiAlign: coordinate_transformation_mode must be 'half_pixel' or "
                              f"'output_half_pixel', got {ctm!r}")
    oh, ow = int(attrs.get("output_height", 1)), int(attrs.get("output_width", 1))
    out_sinfo = relax.TensorStructInfo([rs[0], xs[1], oh, ow], dtype_of(x))
    args = [x, rois, batch_indices, relax.PrimValue(int(attrs.get("sampling_ratio", 0))),
            relax.PrimValue(float(attrs.get("spatial_scale", 1.0))), relax.StringImm(mode),
            relax.PrimValue(int(ctm == "half_pixel"))]
    return R.call_dps_packed(packed.NAMES["roi_align"], args, out_sinfo)

"""ONNX Resize (opset 10-19+) and Upsample, every mode, as separable per-axis resampling.

Resize is separable: the N-d result is a 1-d resample along each resized axis in turn.
With the input shape, scales/sizes and roi known at import, each axis's resample is a
fixed ``(out, in)`` matrix computed here in numpy (float64):

- the source coordinate of each output index under the ``coordinate_transformation_mode``;
- the taps (2 for linear/nearest, 4 for cubic, wider with ``antialias``) and their
  coefficients, neighbours clamped to the edge, ``exclude_outside`` renormalising;
- ``tf_crop_and_resize`` marks outputs whose source lies outside the input; they take
  ``extrapolation_value`` (a ``where`` over the outer OR of the per-axis masks).

``nearest`` becomes a ``take`` of the chosen source index per axis (exact for every
dtype); ``linear``/``cubic`` a matmul with the matrix in float32, cast back (integers
rounded and saturated, as ONNX does).
"""

from __future__ import annotations

import numpy as np

from ember import relax
from ember.relax import op as R

from .common import ONNXImportError, dtype_of, static_shape
from .registry import converter

_MODES = ("nearest", "linear", "cubic")
_COORD_MODES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                "tf_half_pixel_for_nn", "tf_crop_and_resize")
_NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _source_coords(mode: str, n_out: int, n_in: int, scale: float, roi):
    """Source coordinate of each output index, and the extrapolated mask (crop mode only)."""
    y = np.arange(n_out, dtype=np.float64)
    width = scale * n_in  # the un-rounded output length
    outside = None
    if mode == "align_corners":
        x = np.zeros(n_out) if width == 1 else y * (n_in - 1) / (width - 1)
    elif mode == "asymmetric":
        x = y / scale
    elif mode == "tf_half_pixel_for_nn":
        x = (y + 0.5) / scale
    elif mode == "pytorch_half_pixel":
        x = np.full(n_out, -0.5) if width == 1 else (y + 0.5) / scale - 0.5
    elif mode == "half_pixel":
        x = (y + 0.5) / scale - 0.5
    elif mode == "half_pixel_symmetric":
        offset = n_in / 2 * (1 - n_out / width)
        x = offset + (y + 0.5) / scale - 0.5
    else:  # tf_crop_and_resize
        start, end = roi
        if width == 1:
            x = np.full(n_out, (end - start) * (n_in - 1) / 2)
        else:
            x = y * (end - start) * (n_in - 1) / (width - 1)
        x = x + start * (n_in - 1)
        outside = (x < 0) | (x > n_in - 1)
    return x, outside


def _coefficients(kind: str, ratio: float, scale: float, attrs) -> np.ndarray:
    """Tap weights for a fractional offset ``ratio`` in (0, 1] (1 means on a sample)."""
    if kind == "nearest":
        if ratio == 1:
            return np.array([0.0, 1.0])
        rule = attrs["nearest_mode"]
        up = {"round_prefer_floor": ratio > 0.5, "round_prefer_ceil": ratio >= 0.5,
              "floor": False, "ceil": True}[rule]
        return np.array([0.0, 1.0]) if up else np.array([1.0, 0.0])
    if kind == "linear":
        if not attrs["antialias"]:
            return np.array([1 - ratio, ratio])
        s = min(scale, 1.0)
        first = int(np.floor(-1 / s) + 1)
        taps = (np.arange(first, first + 2 - 2 * first) - ratio) * s
        w = np.clip(1 - np.abs(taps), 0, 1)
        return w / w.sum()
    a = attrs["cubic_coeff_a"]

    def kernel(t):
        t = abs(t)
        if t <= 1:
            return (a + 2) * t**3 - (a + 3) * t**2 + 1
        if t < 2:
            return a * t**3 - 5 * a * t**2 + 8 * a * t - 4 * a
        return 0.0

    if not attrs["antialias"]:
        return np.array([kernel(ratio + 1), kernel(ratio), kernel(1 - ratio), kernel(2 - ratio)])
    s = min(scale, 1.0)
    first = int(np.floor(-2 / s) + 1)
    w = np.array([kernel(s * (i - ratio)) for i in range(first, 2 - first)])
    return w / w.sum()


def axis_matrix(kind: str, n_out: int, n_in: int, scale: float, roi, attrs):
    """The ``(n_out, n_in)`` resampling matrix of one axis and its extrapolated-row mask."""
    x, outside = _source_coords(attrs["coordinate_transformation_mode"], n_out, n_in, scale, roi)
    base = np.floor(x)
    ratios = np.where(x == base, 1.0, x - base)
    mat = np.zeros((n_out, n_in), dtype=np.float64)
    for i in range(n_out):
        c = _coefficients(kind, float(ratios[i]), scale, attrs)
        n = len(c)
        pad = int(np.ceil(n / 2))
        xp = x[i] + pad
        p = np.floor(xp)
        frac = xp - p
        if n % 2 == 0:
            start = p - n // 2 if frac == 0 else p - n // 2 + 1
        else:
            start = p - (n - 1) // 2 + (0 if frac <= 0.5 else 1)
        taps = (start + np.arange(n) - pad).astype(np.int64)
        if attrs["exclude_outside"]:
            c = np.where((taps < 0) | (taps >= n_in), 0.0, c)
            total = c.sum()
            c = c / (total if total != 0 else 1.0)
        for t, w in zip(np.clip(taps, 0, n_in - 1), c):
            mat[i, t] += w
    return mat, outside


def _attrs(attrs) -> dict:
    out = {
        "mode": attrs.get("mode", "nearest"),
        "coordinate_transformation_mode": attrs.get("coordinate_transformation_mode", "half_pixel"),
        "nearest_mode": attrs.get("nearest_mode", "round_prefer_floor"),
        "cubic_coeff_a": float(attrs.get("cubic_coeff_a", -0.75)),
        "exclude_outside": int(attrs.get("exclude_outside", 0)),
        "extrapolation_value": float(attrs.get("extrapolation_value", 0.0)),
        "antialias": int(attrs.get("antialias", 0)),
        "keep_aspect_ratio_policy": attrs.get("keep_aspect_ratio_policy", "stretch"),
    }
    for key, allowed in (("mode", _MODES), ("coordinate_transformation_mode", _COORD_MODES),
                         ("nearest_mode", _NEAREST),
                         ("keep_aspect_ratio_policy", ("stretch", "not_larger", "not_smaller"))):
        if out[key] not in allowed:
            raise ONNXImportError(f"Resize: {key} must be one of {list(allowed)}, got {out[key]!r}")
    if out["mode"] == "nearest" and out["antialias"]:
        raise ONNXImportError("Resize: antialias is not defined for mode 'nearest'")
    return out


def _plan(shape, scales, sizes, roi, axes, policy):
    """Per-axis (scale, output length, roi pair) for every dim of the input."""
    r = len(shape)
    axes = list(range(r)) if axes is None else [a + r if a < 0 else a for a in axes]
    full_roi = None
    if roi is not None and roi.size:
        full_roi = [0.0] * r + [1.0] * r
        for i, a in enumerate(axes):
            full_roi[a], full_roi[r + a] = float(roi[i]), float(roi[len(axes) + i])
    if sizes is not None:
        out = list(shape)
        for i, a in enumerate(axes):
            out[a] = int(sizes[i])
        sc = [out[i] / shape[i] for i in range(r)]
        if policy != "stretch":
            pick = min if policy == "not_larger" else max
            s = pick(sc[a] for a in axes)
            sc = [s if i in axes else 1.0 for i in range(r)]
            out = [int(s * shape[i] + 0.5) if i in axes else shape[i] for i in range(r)]
    else:
        sc = [1.0] * r
        for i, a in enumerate(axes):
            sc[a] = float(scales[i])
        out = [int(sc[i] * shape[i]) for i in range(r)]  # truncation, as ONNX specifies
    rois = [None if full_roi is None else (full_roi[i], full_roi[r + i]) for i in range(r)]
    return axes, sc, out, rois


def resize_static(ctx, x, scales, sizes, roi, axes, attrs):
    shape = static_shape(x)
    if shape is None:
        raise ONNXImportError("Resize: the input shape must be known at import")
    a = _attrs(attrs)
    axes, sc, out, rois = _plan(list(shape), scales, sizes, roi, axes, a["keep_aspect_ratio_policy"])
    dtype = dtype_of(x)
    kind = a["mode"]
    y = x
    masks = []
    for ax in axes:
        unchanged = np.isclose(sc[ax], 1.0) and out[ax] == shape[ax] and (
            rois[ax] is None or (np.isclose(rois[ax][0], 0.0) and np.isclose(rois[ax][1], 1.0)))
        if unchanged:
            continue
        if a["coordinate_transformation_mode"] == "tf_crop_and_resize" and rois[ax] is None:
            raise ONNXImportError("Resize: tf_crop_and_resize needs the roi input")
        mat, outside = axis_matrix(kind, out[ax], shape[ax], sc[ax], rois[ax], a)
        if outside is not None and outside.any():
            m = np.zeros([1] * len(shape), dtype=bool).repeat(out[ax], axis=ax)
            masks.append(outside.reshape(m.shape))
        if kind == "nearest":
            idx = relax.const(mat.argmax(axis=1).astype("int64"))
            y = ctx.emit(R.take(y, idx, axis=ax))
            continue
        if dtype_of(y) != "float32":
            y = ctx.emit(R.astype(y, "float32"))
        rank = len(shape)
        perm = [i for i in range(rank) if i != ax] + [ax]
        moved = y if ax == rank - 1 else ctx.emit(R.permute_dims(y, perm))
        moved = ctx.emit(R.matmul(moved, relax.const(np.ascontiguousarray(mat.T).astype("float32"))))
        inv = [perm.index(i) for i in range(rank)]
        y = moved if ax == rank - 1 else ctx.emit(R.permute_dims(moved, inv))
    if dtype_of(y) != dtype:
        if dtype.startswith(("int", "uint")):
            info = np.iinfo(dtype)
            y = ctx.emit(R.clip(ctx.emit(R.round(y)), float(info.min), float(info.max)))
        y = ctx.emit(R.astype(y, dtype))
    if masks:
        mask = masks[0]
        for m in masks[1:]:
            mask = mask | m
        fill = relax.const(np.asarray(a["extrapolation_value"], dtype=dtype))
        y = ctx.emit(R.where(relax.const(np.ascontiguousarray(mask)), fill, y))
    return y


def resize_numpy(x: np.ndarray, scales, sizes, roi, axes, attrs: dict) -> np.ndarray:
    """The same resample in numpy, for scales/sizes/roi known only at run time."""
    a = _attrs(attrs)
    shape = list(x.shape)
    axes, sc, out, rois = _plan(shape, scales, sizes, roi, axes, a["keep_aspect_ratio_policy"])
    y = x.astype(np.float64)
    mask = np.zeros([1] * len(shape), dtype=bool)
    for ax in axes:
        if np.isclose(sc[ax], 1.0) and out[ax] == shape[ax] and (
                rois[ax] is None or (np.isclose(rois[ax][0], 0.0) and np.isclose(rois[ax][1], 1.0))):
            continue
        mat, outside = axis_matrix(a["mode"], out[ax], shape[ax], sc[ax], rois[ax], a)
        y = np.moveaxis(np.tensordot(mat, y, axes=([1], [ax])), 0, ax)
        if outside is not None:
            mask = mask | outside.reshape([-1 if i == ax else 1 for i in range(len(shape))])
    y = np.where(mask, a["extrapolation_value"], y)
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        y = np.clip(np.round(y), info.min, info.max)
    return y.astype(x.dtype)


def _register_runtime_resize():
    import json

    from ember.runtime import register_func

    from .packed import _arr, _nd

    def run(x, roi, scales, sizes, config):
        cfg = json.loads(config)
        vals = [None if v is None or _arr(v).size == 0 else _arr(v).reshape(-1) for v in (roi, scales, sizes)]
        return _nd(resize_numpy(_arr(x), vals[1], vals[2], vals[0], cfg.pop("axes"), cfg))

    register_func("ember.onnx.resize", run, override=True)


_register_runtime_resize()


def _resize_dynamic(ctx, x, roi, scales, sizes, attrs):
    """Resize whose output size is known only at run time: a packed numpy resample."""
    import json

    from .sorting import fresh_dim, packed_result

    rank = len(static_shape(x) or ()) if static_shape(x) is not None else None
    if rank is None:
        from .common import ndim_of

        rank = ndim_of(x)
    axes = attrs.get("axes")
    resized = set(range(rank)) if axes is None else {a % rank for a in axes}
    shape = static_shape(x)
    dims = [fresh_dim(f"resize_dim{i}") if (i in resized or shape is None) else shape[i] for i in range(rank)]
    keys = ("mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
            "extrapolation_value", "antialias", "keep_aspect_ratio_policy")
    cfg = {k: attrs[k] for k in keys if k in attrs}
    _attrs(cfg)  # validate at import
    cfg["axes"] = None if axes is None else [int(a) for a in axes]
    empty = relax.const(np.zeros((0,), "float32"))
    args = [x, roi if roi is not None else empty, scales if scales is not None else empty,
            sizes if sizes is not None else relax.const(np.zeros((0,), "int64")), relax.StringImm(json.dumps(cfg))]
    (out,) = packed_result(ctx, "ember.onnx.resize", args, [dims], [dtype_of(x)])
    return out


def _known(ctx, expr):
    if expr is None:
        return None
    value = ctx.const_value(expr)
    return None if value is None else np.asarray(value).reshape(-1)


@converter("Resize", since=10)
def resize(ctx, node, inputs, attrs):
    x = inputs[0]
    ins = [x, None, inputs[1], None] if ctx.opset < 11 else list(inputs) + [None] * (4 - len(inputs))
    if ctx.opset < 11:
        attrs = {**attrs, "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    if ctx.opset < 13 and attrs.get("mode") == "nearest" and "nearest_mode" not in attrs:
        attrs = {**attrs, "nearest_mode": "round_prefer_floor"}
    given = [e for e in ins[1:] if e is not None and static_shape(e) != (0,)]
    known = [_known(ctx, e) for e in ins[1:]]
    if any(e is not None and k is None for e, k in zip(ins[1:], known)) or static_shape(x) is None:
        roi, scales, sizes = (e if e is not None and static_shape(e) != (0,) else None for e in ins[1:])
        if (scales is None) == (sizes is None):
            raise ONNXImportError("Resize: exactly one of scales and sizes must be given")
        return _resize_dynamic(ctx, x, roi, scales, sizes, attrs)
    roi, scales, sizes = (k if k is not None and k.size else None for k in known)
    if (scales is None) == (sizes is None) or not given:
        raise ONNXImportError("Resize: exactly one of scales and sizes must be given")
    return resize_static(ctx, x, scales, sizes, roi, attrs.get("axes"), attrs)


@converter("Upsample", since=7)
def upsample(ctx, node, inputs, attrs):
    mode = attrs.get("mode", "nearest")
    new_attrs = {"mode": mode, "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    if ctx.opset < 9:
        return resize_static(ctx, inputs[0], np.asarray(attrs["scales"]), None, None, None, new_attrs)
    scales = _known(ctx, inputs[1])
    if scales is None or static_shape(inputs[0]) is None:
        return _resize_dynamic(ctx, inputs[0], None, inputs[1], None, new_attrs)
    return resize_static(ctx, inputs[0], scales, None, None, None, new_attrs)

"""Numpy-backed packed functions for the ONNX ops a tensor program cannot express.

Why these are not TE/TIR kernels:

- ``NonZero``, ``Unique`` and ``NonMaxSuppression`` produce outputs whose *shape*
  depends on the input *values*.  Relax kernels (``call_tir``) write into outputs
  allocated before the call, so the size would have to be known first; instead the
  importer calls these functions through ``call_pure_packed`` with an unknown-shape
  result, then ``match_cast``s it to a fresh symbolic shape so the rest of the graph
  compiles as usual.
- ``RoiAlign`` (static output shape) samples each bin on a grid whose size depends on
  the ROI's extent when ``sampling_ratio`` is 0, a loop bound read from the data.
- ``OneHot`` with a run-time ``depth`` needs ``arange(depth)`` (``ember.onnx.arange``).
- ``TopK`` with ``k`` computed at run time has an output size given by a value too.
- The random generators (``RandomNormal``, ``RandomUniform``, ``Bernoulli``,
  ``Multinomial``) need a stateful generator, which TIR has no notion of.

Each function receives and returns ``ember.runtime`` NDArrays; they are registered
under ``ember.onnx.*`` when this module is imported (the importer imports it whenever a
converter uses one, and a built module needs it imported in the process that runs it).
"""

from __future__ import annotations

import numpy as np

from ember.runtime import register_func

__all__ = ["nonzero", "unique", "non_max_suppression", "NAMES"]

NAMES = {
    "nonzero": "ember.onnx.nonzero",
    "unique": "ember.onnx.unique",
    "topk": "ember.onnx.topk",
    "arange": "ember.onnx.arange",
    "nms": "ember.onnx.non_max_suppression",
    "roi_align": "ember.onnx.roi_align",
    "random_normal": "ember.onnx.random_normal",
    "random_uniform": "ember.onnx.random_uniform",
    "bernoulli": "ember.onnx.bernoulli",
    "multinomial": "ember.onnx.multinomial",
    "dropout_mask": "ember.onnx.dropout_mask",
}


def _arr(x) -> np.ndarray:
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def _nd(a: np.ndarray):
    from ember.runtime import ndarray

    return ndarray.array(np.ascontiguousarray(a))


@register_func(NAMES["nonzero"], override=True)
def nonzero(x):
    """Indices of the non-zero elements, shape ``(rank, count)``, int64 (ONNX NonZero)."""
    return _nd(np.array(np.nonzero(_arr(x)), dtype="int64").reshape(_arr(x).ndim, -1))


@register_func(NAMES["arange"], override=True)
def arange(n):
    """``arange(n)`` as int64 for a length ``n`` known only at run time."""
    return _nd(np.arange(int(_arr(n).reshape(-1)[0]), dtype="int64"))


def unique_numpy(x: np.ndarray, axis: int | None, sorted_: bool):
    """ONNX Unique's four outputs: values, first indices, inverse indices, counts."""
    if axis is None:
        flat = x.reshape(-1)
        y, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True)
        source, take_axis = flat, 0
    else:
        y, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                              axis=axis)
        source, take_axis = x, axis
    inverse = inverse.reshape(-1)
    if not sorted_:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        first, counts, inverse = first[order], counts[order], rank[inverse]
        y = np.take(source, first, axis=take_axis)
    return y, first.astype("int64"), inverse.astype("int64"), counts.astype("int64")


@register_func(NAMES["unique"], override=True)
def unique(x, axis, sorted_):
    """ONNX Unique; ``axis`` is ``-1 - rank`` for "flatten" (no axis attribute)."""
    data = _arr(x)
    axis = int(axis)
    outs = unique_numpy(data, None if axis < -data.ndim else axis, bool(int(sorted_)))
    return tuple(_nd(o) for o in outs)


def topk_numpy(x: np.ndarray, k: int, axis: int, largest: bool):
    """The k largest/smallest along ``axis`` (ties: lower index first), values and int64 indices."""
    n = x.shape[axis]
    if not 0 <= k <= n:
        raise ValueError(f"TopK: k={k} is outside [0, {n}] for an axis of length {n}")
    if largest:  # stable descending order: reverse, sort stably ascending, reverse back
        order = np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
        order = n - 1 - order
    else:
        order = np.argsort(x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx.astype("int64")


@register_func(NAMES["topk"], override=True)
def topk(x, k, axis, largest):
    values, indices = topk_numpy(_arr(x), int(_arr(k).reshape(-1)[0]), int(axis), bool(int(largest)))
    return _nd(values), _nd(indices)


def _corners(boxes: np.ndarray, center: bool) -> np.ndarray:
    """(n, 4) boxes as (y_min, x_min, y_max, x_max) from either ONNX box layout."""
    b = boxes.astype(np.float64)
    if center:
        xc, yc, w, h = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=1)
    return np.stack([np.minimum(b[:, 0], b[:, 2]), np.minimum(b[:, 1], b[:, 3]),
                     np.maximum(b[:, 0], b[:, 2]), np.maximum(b[:, 1], b[:, 3])], axis=1)


def _overlap_matrix(c: np.ndarray, threshold: float) -> np.ndarray:
    """``iou[i, j] > threshold`` for all box pairs; degenerate boxes never suppress."""
    ih = np.minimum(c[:, None, 2], c[None, :, 2]) - np.maximum(c[:, None, 0], c[None, :, 0])
    iw = np.minimum(c[:, None, 3], c[None, :, 3]) - np.maximum(c[:, None, 1], c[None, :, 1])
    inter = np.where((ih > 0) & (iw > 0), ih * iw, 0.0)
    area = (c[:, 2] - c[:, 0]) * (c[:, 3] - c[:, 1])
    union = area[:, None] + area[None, :] - inter
    valid = (inter > 0) & (area[:, None] > 0) & (area[None, :] > 0) & (union > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return valid & (inter / np.where(valid, union, 1.0) > threshold)


def nms_numpy(boxes, scores, max_per_class: int, iou_threshold: float, score_threshold: float | None,
              center: bool) -> np.ndarray:
    """Greedy per-(batch, class) NMS; rows ``(batch, class, box)`` in selection order."""
    selected = []
    n_batch, n_class, n_box = scores.shape
    for b in range(n_batch):
        overlaps = _overlap_matrix(_corners(boxes[b], center), iou_threshold)
        for c in range(n_class):
            s = scores[b, c]
            cand = np.arange(n_box) if score_threshold is None else np.nonzero(s > score_threshold)[0]
            cand = cand[np.lexsort((cand, -s[cand].astype(np.float64)))]  # best first, lower index on ties
            suppressed = np.zeros(n_box, dtype=bool)
            kept = 0
            for i in cand:
                if kept >= max_per_class:
                    break
                if not suppressed[i]:
                    selected.append((b, c, int(i)))
                    kept += 1
                    suppressed |= overlaps[i]
    return np.array(selected, dtype="int64").reshape(-1, 3)


@register_func(NAMES["nms"], override=True)
def non_max_suppression(boxes, scores, max_per_class, iou_threshold, score_threshold, center):
    """ONNX NonMaxSuppression; the three thresholds arrive as (possibly empty) tensors."""
    mx, iou, st = _arr(max_per_class).reshape(-1), _arr(iou_threshold).reshape(-1), _arr(score_threshold).reshape(-1)
    out = nms_numpy(_arr(boxes), _arr(scores), max(int(mx[0]), 0) if mx.size else 0,
                    float(iou[0]) if iou.size else 0.0, float(st[0]) if st.size else None, bool(int(center)))
    return _nd(out)


def _bilinear_taps(y, x, height: int, width: int):
    """Flat positions (..., 4) and weights (..., 4) of bilinear samples at (y, x); samples
    more than one pixel outside the map get zero weight, others clamp to the border."""
    out = (y < -1.0) | (y > height) | (x < -1.0) | (x > width)
    y, x = np.maximum(y, 0.0), np.maximum(x, 0.0)
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    ytop, xtop = y0 >= height - 1, x0 >= width - 1
    y0, x0 = np.where(ytop, height - 1, y0), np.where(xtop, width - 1, x0)
    y, x = np.where(ytop, y0, y), np.where(xtop, x0, x)
    y1, x1 = np.where(ytop, y0, y0 + 1), np.where(xtop, x0, x0 + 1)
    ly, lx = y - y0, x - x0
    hy, hx = 1.0 - ly, 1.0 - lx
    pos = np.stack([y0 * width + x0, y0 * width + x1, y1 * width + x0, y1 * width + x1], axis=-1)
    w = np.stack([hy * hx, hy * lx, ly * hx, ly * lx], axis=-1)
    w = np.where(out[..., None], 0.0, w)
    pos = np.where(out[..., None], 0, pos)
    return pos, w


def roi_align_numpy(x, rois, batch_indices, out_h: int, out_w: int, sampling_ratio: int, scale: float,
                    mode: str, half_pixel: bool) -> np.ndarray:
    """ONNX RoiAlign: average (or max) of bilinear samples on a grid in each output bin."""
    n_roi, (_, channels, height, width) = rois.shape[0], x.shape
    out = np.zeros((n_roi, channels, out_h, out_w), dtype=np.float64)
    shift = 0.5 if half_pixel else 0.0
    for r in range(n_roi):
        x0, y0, x1, y1 = (float(v) * scale - shift for v in rois[r])
        rw, rh = x1 - x0, y1 - y0
        if not half_pixel:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / out_h, rw / out_w
        gh = sampling_ratio if sampling_ratio > 0 else int(np.ceil(rh / out_h))
        gw = sampling_ratio if sampling_ratio > 0 else int(np.ceil(rw / out_w))
        if gh <= 0 or gw <= 0:
            continue
        ys = y0 + np.arange(out_h)[:, None] * bh + (np.arange(gh)[None, :] + 0.5) * bh / gh  # (oh, gh)
        xs = x0 + np.arange(out_w)[:, None] * bw + (np.arange(gw)[None, :] + 0.5) * bw / gw  # (ow, gw)
        yy = np.broadcast_to(ys[:, None, :, None], (out_h, out_w, gh, gw))
        xx = np.broadcast_to(xs[None, :, None, :], (out_h, out_w, gh, gw))
        pos, w = _bilinear_taps(yy, xx, height, width)
        plane = x[int(batch_indices[r])].reshape(channels, -1).astype(np.float64)
        weighted = plane[:, pos] * w  # (C, oh, ow, gh, gw, 4)
        if mode == "avg":
            out[r] = weighted.sum(axis=(3, 4, 5)) / max(gh * gw, 1)
        else:
            out[r] = weighted.max(axis=5).max(axis=(3, 4))
    return out.astype(x.dtype)


@register_func(NAMES["roi_align"], override=True)
def roi_align(x, rois, batch_indices, sampling_ratio, scale, mode, half_pixel, out):
    """ONNX RoiAlign into ``out`` (its last two dims give the output height and width)."""
    value = roi_align_numpy(_arr(x), _arr(rois), _arr(batch_indices), out.shape[2], out.shape[3],
                            int(sampling_ratio), float(scale), str(mode), bool(int(half_pixel)))
    out.copyfrom(value)


_RNG = np.random.RandomState()


def _generator(seed: float):
    """numpy's ``RandomState(seed)`` — the stream ONNX's reference evaluator draws, so a
    seeded node gives the reference's numbers — or (NaN) the process-wide unseeded one."""
    return _RNG if np.isnan(float(seed)) else np.random.RandomState(int(float(seed)))


@register_func(NAMES["random_normal"], override=True)
def random_normal(mean, scale, seed, out):
    shape, dtype = tuple(out.shape), str(out.dtype)
    value = _generator(seed).randn(*shape).astype(dtype) * np.asarray(scale, dtype) + np.asarray(mean, dtype)
    out.copyfrom(np.asarray(value, dtype=dtype))


@register_func(NAMES["random_uniform"], override=True)
def random_uniform(low, high, seed, out):
    shape, dtype = tuple(out.shape), str(out.dtype)
    value = _generator(seed).rand(*shape).astype(dtype) * np.asarray(float(high) - float(low), dtype) \
        + np.asarray(low, dtype)
    out.copyfrom(np.asarray(value, dtype=dtype))


@register_func(NAMES["bernoulli"], override=True)
def bernoulli(p, seed, out):
    probs = _arr(p)
    value = _generator(seed).binomial(1, p=probs)
    out.copyfrom(np.asarray(value).astype(str(out.dtype)))


@register_func(NAMES["dropout_mask"], override=True)
def dropout_mask(ratio, seed, out):
    """Dropout's keep mask: uniform draws ``>= ratio`` (ONNX's reference rule)."""
    value = _generator(seed).uniform(0.0, 1.0, tuple(out.shape)) >= float(_arr(ratio))
    out.copyfrom(value)


@register_func(NAMES["multinomial"], override=True)
def multinomial(logits, seed, out):
    """``out[b, j]``: a class drawn from ``softmax``-free unnormalised log-probabilities."""
    lg = _arr(logits).astype("float64")
    rng = _generator(seed)
    probs = np.exp(lg - lg.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    n = out.shape[1]
    value = np.stack([rng.choice(probs.shape[1], size=n, p=row) for row in probs])
    out.copyfrom(value.astype(str(out.dtype)))

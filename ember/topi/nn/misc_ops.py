"""More ``topi.nn`` operators under TVM's names: ``flatten`` (keep the batch axis),
``upsampling`` (NCHW nearest / bilinear by integer or float scales), ``lrn`` (local
response normalisation across channels) and ``nll_loss``."""

from __future__ import annotations

from ember import te, tir

from ..utils import get_const_int

__all__ = ["flatten", "upsampling", "lrn", "nll_loss"]


def flatten(data) -> te.Tensor:
    """(N, d1, d2, …) → (N, d1 * d2 * …)."""
    rest = list(data.shape[1:])
    size = 1
    for d in rest:
        size = size * d

    def f(n, j):
        idx, left = [], j
        for d in reversed(rest):
            idx.append(left % d)
            left = left // d
        return data(n, *reversed(idx))

    return te.compute((data.shape[0], size), f, name="flatten", tag="injective")


def upsampling(data, scale_h, scale_w, layout: str = "NCHW", method: str = "nearest_neighbor",
               align_corners: bool = False, output_shape=None) -> te.Tensor:
    """Resize an NCHW (or NHWC) image by ``scale_h``, ``scale_w``."""
    from ..image import resize2d

    h_axis, w_axis = layout.index("H"), layout.index("W")
    if output_shape is None:
        out_h = int(round(get_const_int(data.shape[h_axis]) * scale_h))
        out_w = int(round(get_const_int(data.shape[w_axis]) * scale_w))
    else:
        out_h, out_w = output_shape[h_axis], output_shape[w_axis]
    method = "linear" if method in ("bilinear", "linear") else method
    mode = "align_corners" if align_corners else "asymmetric" if method == "nearest_neighbor" else "half_pixel"
    rounding = "floor" if method == "nearest_neighbor" else ""
    return resize2d(data, [0.0] * 4, (out_h, out_w), layout, method, mode, rounding)


def lrn(data, size: int, axis: int = 1, alpha: float = 0.0001, beta: float = 0.75, bias: float = 2.0) -> te.Tensor:
    """``data / (bias + alpha / size * sum of squares over ``size`` neighbouring channels) ** beta``."""
    channels = data.shape[axis]
    half = size // 2
    r = te.reduce_axis((0, size), name="rc")

    def sq(*i):
        c = i[axis] + r.var - half
        inside = tir.And(c >= 0, c < channels)
        idx = list(i)
        idx[axis] = tir.max(tir.min(c, channels - 1), 0)
        v = data(*idx)
        return te.sum(tir.Select(inside, v * v, tir.const(0.0, data.dtype)), axis=r)

    sqsum = te.compute(data.shape, sq, name="lrn_sqsum")

    def out(*i):
        scale = tir.const(bias, data.dtype) + tir.const(alpha / size, data.dtype) * sqsum(*i)
        return data(*i) / tir.power(scale, tir.const(beta, data.dtype))

    return te.compute(data.shape, out, name="lrn", tag="injective")


def nll_loss(predictions, targets, weights=None, reduction: str = "mean", ignore_index: int = -100):
    """Negative log-likelihood: ``-weights[t] * predictions[n, t]`` for target ``t`` of each row,
    0 where ``t == ignore_index``; ``predictions`` is (N, C, d1, ...) or (C,), ``targets`` (N, d1, ...) or ()."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"topi.nn.nll_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    batched = len(predictions.shape) >= 2
    dtype = predictions.dtype

    def weight_of(t):
        return weights(t) if weights is not None else tir.const(1.0, dtype)

    def row(*n):
        t = targets(*n)
        keep = t != tir.const(ignore_index, t.dtype)
        safe = tir.Select(keep, t, tir.const(0, t.dtype))
        p = predictions(n[0], safe, *n[1:]) if batched else predictions(safe)
        return tir.Select(keep, -weight_of(safe) * p, tir.const(0.0, dtype))

    def wrow(*n):
        t = targets(*n)
        keep = t != tir.const(ignore_index, t.dtype)
        return tir.Select(keep, weight_of(tir.Select(keep, t, tir.const(0, t.dtype))), tir.const(0.0, dtype))

    shape = targets.shape
    losses = te.compute(shape, row, name="nll_loss")
    if reduction == "none":
        return losses
    axes = [te.reduce_axis((0, d), name=f"r{i}") for i, d in enumerate(shape)]
    total = te.compute((), lambda: te.sum(losses(*[a.var for a in axes]), axis=axes), name="nll_loss_sum")
    if reduction == "sum":
        return total
    waxes = [te.reduce_axis((0, d), name=f"w{i}") for i, d in enumerate(shape)]
    wrows = te.compute(shape, wrow, name="nll_loss_w")
    wsum = te.compute((), lambda: te.sum(wrows(*[a.var for a in waxes]), axis=waxes), name="nll_loss_wsum")
    return te.compute((), lambda: total() / wsum(), name="nll_loss_mean")

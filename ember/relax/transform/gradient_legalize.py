"""Kernels of the ``relax.grad.*`` operators (set as their ``FLegalize`` attribute).

``no_grad`` and the checkpoint markers are identities.  The backward operators are written
as TE computations that *gather* into each input position (no scatter, no atomics):

* ``max_pool2d_backward``: position ``(h, w)`` receives the gradient of every window whose
  maximum equals ``x[h, w]`` (the window's max recomputed by ``topi.nn.pool2d``); with ties a
  window's gradient reaches each tied position (TVM's kernel picks the first);
* ``avg_pool2d_backward``: each window's gradient divided by the forward pass's divisor;
* ``take_backward``: the sum of the output gradients whose index equals the position;
* ``nll_loss_backward``: ``-weight[t] * grad`` (over the total weight for ``mean``) at the
  target class of each row, 0 elsewhere and where the target is ``ignore_index``.
"""

from __future__ import annotations

from ember import te, tir, topi
from ember.ir import Op, const
from ember.tir import op as tir_op
from ember.topi.nn.pooling import _count as window_count

from .legalize_ops.common import emit_te, int_tuple

__all__ = ["TABLE"]


def _identity(bb, call):
    return call.args[0]


def _pool_params(call):
    a = call.attrs
    if a.layout != "NCHW" or a.out_layout != "NCHW":
        raise NotImplementedError(f"LegalizeOps: {call.op.name} supports the NCHW layout only, got {a.layout}")
    return (int_tuple(a.pool_size), int_tuple(a.strides), int_tuple(a.dilation), int_tuple(a.padding))


def _windows(g, x, kernel, stride, dilation, padding, h, w, rk):
    """For input row/col ``(h, w)`` and kernel offset ``rk``: whether a window (oh, ow) holds
    it, and that window's (clamped) indices."""
    out_hw = [int(g.shape[2]), int(g.shape[3])]
    conds, idx = [], []
    for pos, r, k in ((h, rk[0], 0), (w, rk[1], 1)):
        p = pos + padding[k] - r * dilation[k]
        o = tir.floordiv(p, stride[k])
        ok = tir.all(p >= 0, tir.floormod(p, stride[k]) == 0, o < out_hw[k])
        conds.append(ok)
        idx.append(tir.Select(ok, o, tir_op.min(o, out_hw[k] - 1) * 0))
    return tir.all(*conds), idx


def _max_pool2d_backward(bb, call):
    kernel, stride, dilation, padding = _pool_params(call)
    a = call.attrs

    def f(g, x):
        peak = topi.nn.pool2d(x, kernel, stride, dilation, padding, "max", a.ceil_mode, "NCHW")
        rk = [te.reduce_axis((0, kernel[0]), name="rh"), te.reduce_axis((0, kernel[1]), name="rw")]

        def body(n, c, h, w):
            ok, (oh, ow) = _windows(g, x, kernel, stride, dilation, padding, h, w, [r.var for r in rk])
            hit = tir.all(ok, x(n, c, h, w) == peak(n, c, oh, ow))
            return te.sum(tir.Select(hit, g(n, c, oh, ow), const(0, g.dtype)), axis=rk)

        return te.compute(x.shape, body, name="max_pool2d_backward")

    return emit_te(bb, call, f, call.args[0], call.args[1])


def _avg_pool2d_backward(bb, call):
    kernel, stride, dilation, padding = _pool_params(call)
    a = call.attrs

    def f(g, x):
        sizes = [int(x.shape[2]), int(x.shape[3])]
        before, after = padding[:2], padding[2:]
        rk = [te.reduce_axis((0, kernel[0]), name="rh"), te.reduce_axis((0, kernel[1]), name="rw")]

        def divisor(oh, ow):
            count = None
            for k, o in enumerate((oh, ow)):
                start = o * stride[k] - before[k]
                lo, hi = (-before[k], sizes[k] + after[k]) if a.count_include_pad else (0, sizes[k])
                c = window_count(start, sizes[k], kernel[k], dilation[k], lo, hi)
                count = c if count is None else count * c
            return tir_op.cast(tir_op.max(count, 1), g.dtype)

        def body(n, c, h, w):
            ok, (oh, ow) = _windows(g, x, kernel, stride, dilation, padding, h, w, [r.var for r in rk])
            share = g(n, c, oh, ow) / divisor(oh, ow)
            return te.sum(tir.Select(ok, share, const(0, g.dtype)), axis=rk)

        return te.compute(x.shape, body, name="avg_pool2d_backward")

    return emit_te(bb, call, f, call.args[0], call.args[1])


def _wrapped(index, extent):
    """A possibly negative index into an axis of ``extent`` as a non-negative one."""
    return tir.Select(index < const(0, index.dtype), index + tir_op.cast(extent, index.dtype), index)


def _take_backward(bb, call):
    axis = call.attrs.axis

    def f(g, x, indices):
        ishape = list(indices.shape)
        rs = [te.reduce_axis((0, d), name=f"r{i}") for i, d in enumerate(ishape)]
        ivars = [r.var for r in rs]

        def gathered(pos, extent, g_index):
            idx = indices(*ivars)
            hit = _wrapped(idx, extent) == tir_op.cast(pos, idx.dtype)
            value = tir.Select(hit, g(*g_index), const(0, g.dtype))
            return te.sum(value, axis=rs) if rs else value

        if axis is None:
            def body(*i):
                flat, extent = i[0], 1
                for k in range(1, len(i)):
                    flat = flat * x.shape[k] + i[k]
                for d in x.shape:
                    extent = extent * d
                return gathered(flat, extent, ivars)
        else:
            ax = axis + len(x.shape) if axis < 0 else axis

            def body(*i):
                return gathered(i[ax], x.shape[ax], list(i[:ax]) + ivars + list(i[ax + 1:]))

        return te.compute(x.shape, body, name="take_backward")

    return emit_te(bb, call, f, *call.args)


def _nll_loss_backward(bb, call):
    a = call.attrs

    def f(g, pred, targets, weights=None):
        dtype = pred.dtype
        batched = len(pred.shape) >= 2

        def weight_of(t):
            return weights(t) if weights is not None else const(1.0, dtype)

        def kept(t):
            return t != const(a.ignore_index, t.dtype)

        total = None
        if a.reduction == "mean":
            axes = [te.reduce_axis((0, d), name=f"w{i}") for i, d in enumerate(targets.shape)]

            def one_weight(*i):
                t = targets(*i)
                return tir.Select(kept(t), weight_of(tir.Select(kept(t), t, const(0, t.dtype))), const(0, dtype))

            wrow = te.compute(targets.shape, one_weight, name="nll_loss_weight")
            total = te.compute((), lambda: te.sum(wrow(*[r.var for r in axes]), axis=axes), name="nll_loss_total")

        def body(*i):
            cls, rest = (i[1], (i[0],) + tuple(i[2:])) if batched else (i[0], ())
            t = targets(*rest)
            safe = tir.Select(kept(t), t, const(0, t.dtype))
            grad = g(*rest) if a.reduction == "none" else g()
            if total is not None:
                grad = grad / total()
            hit = tir.all(kept(t), tir_op.cast(cls, t.dtype) == t)
            return tir.Select(hit, -weight_of(safe) * grad, const(0, dtype))

        return te.compute(pred.shape, body, name="nll_loss_backward")

    return emit_te(bb, call, f, *call.args)


TABLE = {
    "relax.grad.no_grad": _identity,
    "relax.grad.start_checkpoint": _identity,
    "relax.grad.end_checkpoint": _identity,
    "relax.grad.max_pool2d_backward": _max_pool2d_backward,
    "relax.grad.avg_pool2d_backward": _avg_pool2d_backward,
    "relax.grad.take_backward": _take_backward,
    "relax.grad.nll_loss_backward": _nll_loss_backward,
}

for _name, _legalize in TABLE.items():
    Op.get(_name).set_attr("FLegalize", _legalize, override=True)

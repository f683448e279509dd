"""Gradients of ``relax.nn`` operators (same contract as ``gradient_table.py``): activations,
softmax / log_softmax, layer_norm, losses, pooling and conv2d."""

from __future__ import annotations

import math

from .. import op as R
from ..struct_info import shape_values
from .gradient_table import register_gradients, scalar, shape_of

__all__ = ["TABLE"]


def _relu(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]  # slope 1 at 0, as TVM: a zero-initialised network still trains
    return [R.where(R.less(x, scalar(0.0, x)), R.zeros_like(output_grad), output_grad)]


def _silu(orig_var, orig_call, output_grad, ctx):
    """d/dx x·σ(x) = σ(x)·(1 + x·(1 − σ(x)))."""
    x = orig_call.args[0]
    s = ctx.emit(R.sigmoid(x))
    slope = R.multiply(s, R.add(scalar(1.0, x), R.multiply(x, R.subtract(scalar(1.0, x), s))))
    return [R.multiply(output_grad, slope)]


def _leakyrelu(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    scaled = R.multiply(scalar(orig_call.attrs.alpha, x), output_grad)
    return [R.where(R.less(x, scalar(0.0, x)), scaled, output_grad)]


def _gelu(orig_var, orig_call, output_grad, ctx):
    """d/dx x·Φ(x) = Φ(x) + x·φ(x), Φ the normal CDF and φ its density."""
    x = orig_call.args[0]
    cdf = R.multiply(scalar(0.5, x), R.add(scalar(1.0, x), R.erf(R.multiply(x, scalar(math.sqrt(0.5), x)))))
    density = R.multiply(scalar(1.0 / math.sqrt(2.0 * math.pi), x),
                         R.exp(R.multiply(scalar(-0.5, x), R.multiply(x, x))))
    return [R.multiply(output_grad, R.add(cdf, R.multiply(x, density)))]


def _layer_norm(orig_var, orig_call, output_grad, ctx):
    """Over the normalised (trailing) axes, with x̂ = (x − μ)/σ and h = g·γ:
    dx = (h − mean(h) − x̂·mean(h·x̂)) / σ, dγ = Σ g·x̂, dβ = Σ g over the other axes."""
    x, gamma, beta = orig_call.args
    a = orig_call.attrs
    ndim = x.struct_info.ndim
    axes = sorted(int(ax) % ndim for ax in a.axes)
    if axes != list(range(ndim - len(axes), ndim)):
        raise NotImplementedError(f"Gradient: relax.nn.layer_norm gradients need trailing axes, got {list(a.axes)}")
    mean = ctx.emit(R.mean(x, axes, keepdims=True))
    centred = ctx.emit(R.subtract(x, mean))
    var = R.mean(R.multiply(centred, centred), axes, keepdims=True)
    sigma = ctx.emit(R.sqrt(R.add(var, scalar(float(a.epsilon), x))))
    xhat = ctx.emit(R.divide(centred, sigma))
    h = ctx.emit(R.multiply(output_grad, gamma)) if a.scale else output_grad
    inner = R.subtract(R.subtract(h, R.mean(h, axes, keepdims=True)),
                       R.multiply(xhat, R.mean(R.multiply(h, xhat), axes, keepdims=True)))
    dx = R.divide(inner, sigma)
    dgamma = R.collapse_sum_to(R.multiply(output_grad, xhat), shape_of(gamma)) if a.scale else R.grad.no_grad(gamma)
    dbeta = R.collapse_sum_to(output_grad, shape_of(beta)) if a.center else R.grad.no_grad(beta)
    return [dx, dgamma, dbeta]


def _softmax(orig_var, orig_call, output_grad, ctx):
    """y·(g − Σ g·y) along the axis."""
    axis = orig_call.attrs.axis
    dot = R.sum(R.multiply(output_grad, orig_var), [axis], keepdims=True)
    return [R.multiply(orig_var, R.subtract(output_grad, dot))]


def _log_softmax(orig_var, orig_call, output_grad, ctx):
    """g − exp(y)·Σ g along the axis."""
    axis = orig_call.attrs.axis
    total = R.sum(output_grad, [axis], keepdims=True)
    return [R.subtract(output_grad, R.multiply(total, R.exp(orig_var)))]


def _cross_entropy_with_logits(orig_var, orig_call, output_grad, ctx):
    """−g·labels (−g·predictions) over the batch size for 2-D inputs."""
    pred, labels = orig_call.args
    g = output_grad
    if pred.struct_info.ndim == 2:
        g = R.divide(g, scalar(float(shape_values(pred.struct_info)[0]), pred))
    g = ctx.emit(R.negative(g))
    return [R.multiply(g, labels), R.multiply(g, pred)]


def _nll_loss(orig_var, orig_call, output_grad, ctx):
    a = orig_call.attrs
    pred, targets, *weights = orig_call.args
    grad = R.grad.nll_loss_backward(output_grad, pred, targets, weights[0] if weights else None,
                                    a.reduction, a.ignore_index)
    return [grad, R.grad.no_grad(targets)] + [R.grad.no_grad(w) for w in weights]


def _pool2d(backward):
    def grad(orig_var, orig_call, output_grad, ctx):
        a = orig_call.attrs
        return [backward(output_grad, orig_call.args[0], a.pool_size, a.strides, a.padding, a.dilation,
                         a.ceil_mode, a.count_include_pad, a.layout, a.out_layout)]

    return grad


def _stuffed(ctx, g, strides):
    """``g`` (N, O, OH, OW) with ``stride - 1`` zeros after every element of each spatial
    axis: (N, O, OH*sh, OW*sw), the output gradient placed where the windows start."""
    n, o, oh, ow = (int(d) for d in shape_values(g.struct_info))
    sh, sw = strides
    if sh == sw == 1:
        return g
    spread = R.reshape(g, (n, o, oh, 1, ow, 1))
    padded = R.nn.pad(spread, [0, 0, 0, 0, 0, 0, 0, sh - 1, 0, 0, 0, sw - 1])
    return ctx.normalize(R.reshape(padded, (n, o, oh * sh, ow * sw)))


def _conv2d_data_grad(ctx, g, x, w, a):
    """dX: the stuffed output gradient convolved with the flipped kernel (each group's
    input and output channels swapped); negative paddings crop the stuffed gradient."""
    n, c, h, wd = (int(d) for d in shape_values(x.struct_info))
    o, cg, kh, kw = (int(d) for d in shape_values(w.struct_info))
    groups = int(a.groups)
    og = o // groups
    z = _stuffed(ctx, g, a.strides)
    zshape = [int(d) for d in shape_values(z.struct_info)]
    before, after, begin, end = [], [], [], []
    for k, (size, kernel) in enumerate(((h, kh), (wd, kw))):
        span = (kernel - 1) * int(a.dilation[k])
        lo = span - int(a.padding[k])
        hi = size - zshape[2 + k] + int(a.padding[k])
        before.append(max(lo, 0))
        after.append(max(hi, 0))
        begin.append(max(-lo, 0))
        end.append(zshape[2 + k] - max(-hi, 0))
    if any(begin) or end != zshape[2:]:
        z = R.strided_slice(z, [2, 3], begin, end)
    flipped = R.reshape(w, (groups, og, cg, kh, kw))
    flipped = R.reshape(R.permute_dims(flipped, [0, 2, 1, 3, 4]), (c, og, kh, kw))
    flipped = R.flip(R.flip(flipped, 2), 3)
    return R.nn.conv2d(z, flipped, strides=1, padding=before + after, dilation=a.dilation, groups=groups,
                       out_dtype=a.out_dtype)


def _conv2d_weight_grad(ctx, g, x, w, a):
    """dW: per group, the data (batch as channels) convolved with the output gradient as the
    kernel (strides and dilation exchange roles), cut to the kernel's size."""
    n, c, h, wd = (int(d) for d in shape_values(x.struct_info))
    o, cg, kh, kw = (int(d) for d in shape_values(w.struct_info))
    _, _, oh, ow = (int(d) for d in shape_values(g.struct_info))
    groups = int(a.groups)
    og = o // groups
    data = R.reshape(R.permute_dims(R.reshape(x, (n, groups, cg, h, wd)), [2, 1, 0, 3, 4]), (cg, groups * n, h, wd))
    kernel = R.reshape(R.permute_dims(R.reshape(g, (n, groups, og, oh, ow)), [1, 2, 0, 3, 4]), (o, n, oh, ow))
    out = ctx.normalize(R.nn.conv2d(data, kernel, strides=a.dilation, padding=a.padding, dilation=a.strides,
                                    groups=groups, out_dtype=a.out_dtype))
    _, _, fh, fw = (int(d) for d in shape_values(out.struct_info))
    if (fh, fw) != (kh, kw):
        out = R.strided_slice(out, [2, 3], [0, 0], [kh, kw])
    return R.permute_dims(out, [1, 0, 2, 3])


def _conv2d(orig_var, orig_call, output_grad, ctx):
    a = orig_call.attrs
    if (a.data_layout, a.kernel_layout, a.out_layout) != ("NCHW", "OIHW", "NCHW"):
        raise NotImplementedError("Gradient: relax.nn.conv2d gradients support NCHW data and OIHW weights, got "
                                  f"{a.data_layout}/{a.kernel_layout}/{a.out_layout}")
    x, w = orig_call.args
    g = ctx.normalize(output_grad)
    return [_conv2d_data_grad(ctx, g, x, w, a), _conv2d_weight_grad(ctx, g, x, w, a)]


TABLE = {
    "relax.nn.relu": _relu,
    "relax.nn.silu": _silu,
    "relax.nn.leakyrelu": _leakyrelu,
    "relax.nn.gelu": _gelu,
    "relax.nn.layer_norm": _layer_norm,
    "relax.nn.softmax": _softmax,
    "relax.nn.log_softmax": _log_softmax,
    "relax.nn.cross_entropy_with_logits": _cross_entropy_with_logits,
    "relax.nn.nll_loss": _nll_loss,
    "relax.nn.max_pool2d": _pool2d(R.grad.max_pool2d_backward),
    "relax.nn.avg_pool2d": _pool2d(R.grad.avg_pool2d_backward),
    "relax.nn.conv2d": _conv2d,
}

register_gradients(TABLE)

"""Gradients of ``relax.nn`` operators (same contract as ``gradient_table.py``): activations,
softmax / log_softmax, losses, pooling and conv2d."""

from __future__ import annotations

from .. import op as R
from ..struct_info import shape_values
from .gradient_table import register_gradients, scalar

__all__ = ["TABLE"]


def _relu(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    return [R.where(R.greater(x, scalar(0.0, x)), output_grad, R.zeros_like(output_grad))]


def _silu(orig_var, orig_call, output_grad, ctx):
    """d/dx x·σ(x) = σ(x)·(1 + x·(1 − σ(x)))."""
    x = orig_call.args[0]
    s = ctx.emit(R.sigmoid(x))
    slope = R.multiply(s, R.add(scalar(1.0, x), R.multiply(x, R.subtract(scalar(1.0, x), s))))
    return [R.multiply(output_grad, slope)]


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


TABLE = {
    "relax.nn.relu": _relu,
    "relax.nn.silu": _silu,
    "relax.nn.softmax": _softmax,
    "relax.nn.log_softmax": _log_softmax,
    "relax.nn.cross_entropy_with_logits": _cross_entropy_with_logits,
    "relax.nn.nll_loss": _nll_loss,
    "relax.nn.max_pool2d": _pool2d(R.grad.max_pool2d_backward),
    "relax.nn.avg_pool2d": _pool2d(R.grad.avg_pool2d_backward),
}

register_gradients(TABLE)

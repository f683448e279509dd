"""``relax.op.grad``: operators that only gradients use (TVM's ``relax.grad.*``).

* ``no_grad(x)`` marks an input whose gradient is not defined (a shape, an index, a mask);
  it is ``x`` itself at run time.
* ``start_checkpoint(x)`` / ``end_checkpoint(x)`` delimit a checkpointed region for the
  Gradient pass; identities at run time, and their operand must be a variable.
* ``nll_loss_backward``, ``max_pool2d_backward``, ``avg_pool2d_backward``, ``take_backward``
  map the output gradient of the forward op to the gradient of its data input; each has the
  struct info of that input.  Their kernels are set in ``relax/transform/gradient_legalize.py``.
"""

from __future__ import annotations

from ember.error import StructInfoTypeError

from ..expr import Call, Var
from ..struct_info import TensorStructInfo
from .attrs import Pool2DAttrs, TakeAttrs
from .base import arg_sinfo, make_call, register, tensor_arg
from .nn.convolution import _tuple, expand_padding
from .nn.torch_extra import NLLLossAttrs

__all__ = [
    "no_grad", "start_checkpoint", "end_checkpoint", "nll_loss_backward", "max_pool2d_backward",
    "avg_pool2d_backward", "take_backward",
]


def _same_as_arg(i: int):
    def infer(call: Call, ctx):
        return arg_sinfo(call, i)

    return infer


def _checkpoint_infer(call: Call, ctx):
    if not isinstance(call.args[0], Var):
        raise StructInfoTypeError(
            f"{call.op.name}: the operand must be a variable, got {type(call.args[0]).__name__}"
        )
    return arg_sinfo(call, 0)


def _backward_infer(call: Call, ctx) -> TensorStructInfo:
    tensor_arg(call, 0)  # the output gradient
    return tensor_arg(call, 1)


register("grad.no_grad", _same_as_arg(0), arg_names=("input",))
register("grad.start_checkpoint", _checkpoint_infer, arg_names=("input",))
register("grad.end_checkpoint", _checkpoint_infer, arg_names=("input",))
register("grad.nll_loss_backward", _backward_infer,
         arg_names=("output_grad", "predictions", "targets", "weights"))
register("grad.max_pool2d_backward", _backward_infer, arg_names=("output_grad", "data"))
register("grad.avg_pool2d_backward", _backward_infer, arg_names=("output_grad", "data"))
register("grad.take_backward", _backward_infer, arg_names=("output_grad", "x", "indices"))


def no_grad(input) -> Call:  # noqa: A002 - TVM's parameter name
    """``input`` unchanged; marks it as having no gradient."""
    return make_call("grad.no_grad", [input])


def start_checkpoint(input) -> Call:  # noqa: A002
    """Mark the start of a checkpointed region at variable ``input`` (identity)."""
    return make_call("grad.start_checkpoint", [input])


def end_checkpoint(input) -> Call:  # noqa: A002
    """Mark the end of a checkpointed region at variable ``input`` (identity)."""
    return make_call("grad.end_checkpoint", [input])


def nll_loss_backward(output_grad, predictions, targets, weights=None, reduction: str = "mean",
                      ignore_index: int = -100) -> Call:
    """Gradient of ``nn.nll_loss(predictions, targets, weights)`` w.r.t. ``predictions``."""
    args = [output_grad, predictions, targets] + ([weights] if weights is not None else [])
    return make_call("grad.nll_loss_backward", args, NLLLossAttrs(reduction, int(ignore_index)))


def _pool2d_backward(kind: str, output_grad, data, pool_size, strides, padding, dilation, ceil_mode,
                     count_include_pad, layout, out_layout) -> Call:
    attrs = Pool2DAttrs(
        _tuple(pool_size, 2, "pool_size"), _tuple(strides, 2, "strides"), expand_padding(padding, 2),
        _tuple(dilation, 2, "dilation"), bool(ceil_mode), bool(count_include_pad), layout,
        out_layout or layout,
    )
    return make_call(f"grad.{kind}_pool2d_backward", [output_grad, data], attrs)


def max_pool2d_backward(output_grad, data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0, 0, 0),
                        dilation=(1, 1), ceil_mode: bool = False, count_include_pad: bool = False,
                        layout: str = "NCHW", out_layout: str | None = None) -> Call:
    """Gradient of ``nn.max_pool2d`` w.r.t. ``data``: each window's gradient goes to its maximum."""
    return _pool2d_backward("max", output_grad, data, pool_size, strides, padding, dilation, ceil_mode,
                            count_include_pad, layout, out_layout)


def avg_pool2d_backward(output_grad, data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0, 0, 0),
                        dilation=(1, 1), ceil_mode: bool = False, count_include_pad: bool = False,
                        layout: str = "NCHW", out_layout: str | None = None) -> Call:
    """Gradient of ``nn.avg_pool2d`` w.r.t. ``data``: each window's gradient shared by its divisor."""
    return _pool2d_backward("avg", output_grad, data, pool_size, strides, padding, dilation, ceil_mode,
                            count_include_pad, layout, out_layout)


def take_backward(output_grad, x, indices, axis: int | None = None) -> Call:
    """Gradient of ``take(x, indices, axis)`` w.r.t. ``x``: the output gradient summed back
    into the positions it was taken from."""
    return make_call("grad.take_backward", [output_grad, x, indices], TakeAttrs(axis))

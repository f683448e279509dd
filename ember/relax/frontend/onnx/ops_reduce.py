"""ONNX converters: reductions (ReduceSum/Mean/Max/Min/Prod, ReduceL1/L2, ReduceLogSum,
ReduceLogSumExp, ReduceSumSquare) and ArgMax/ArgMin.

``axes`` is an attribute before opset 18 (ReduceSum: 13) and an input after; an empty
``axes`` reduces everything unless ``noop_with_empty_axes`` is set.
"""

from __future__ import annotations

from ... import op as R
from .common import ndim_of, norm_axes, norm_axis, shape_of
from .ops_elementwise import scalar
from .ops_tensor import known_ints
from .registry import converter


def _axes(ctx, node, inputs, attrs):
    axes_from_input = ctx.opset >= (13 if node.op_type == "ReduceSum" else 18)
    if axes_from_input:
        axes = None
        if len(inputs) > 1 and inputs[1] is not None:
            axes = known_ints(ctx, inputs[1], f"{node.op_type}'s axes")
    else:
        axes = attrs.get("axes")
    if not axes:
        if axes_from_input and attrs.get("noop_with_empty_axes", 0):
            return None
        return list(range(ndim_of(inputs[0])))
    return norm_axes(axes, ndim_of(inputs[0]))


def _reducer(body):
    def convert(ctx, node, inputs, attrs):
        x = inputs[0]
        keep = bool(attrs.get("keepdims", 1))
        axes_from_input = ctx.opset >= (13 if node.op_type == "ReduceSum" else 18)
        if axes_from_input and len(inputs) > 1 and inputs[1] is not None and ctx.const_value(inputs[1]) is None:
            from .packed_reduce import reduce_runtime_axes

            return reduce_runtime_axes(ctx, node.op_type, x, inputs[1], keep,
                                       bool(attrs.get("noop_with_empty_axes", 0)))
        axes = _axes(ctx, node, inputs, attrs)
        if axes is None:
            return body(ctx, x, None, keep, identity=True)
        return body(ctx, x, axes, keep, identity=False)

    return convert


def _simple(fn, pre=None, post=None):
    def body(ctx, x, axes, keep, identity):
        y = ctx.emit(pre(x)) if pre is not None else x
        if identity:
            out = y
        else:
            out = fn(y, axes, keep)
        return post(ctx.emit(out)) if post is not None else out

    return body


def _log_sum_exp(ctx, x, axes, keep, identity):
    if identity:
        return x
    m = ctx.emit(R.max(x, axes, True))
    m = ctx.emit(R.where(R.isinf(m), R.zeros_like(m), m))
    s = ctx.emit(R.sum(R.exp(ctx.emit(R.subtract(x, m))), axes, keep))
    m_out = m if keep else ctx.emit(R.squeeze(m, axes))
    return R.add(ctx.emit(R.log(s)), m_out)


REDUCERS = {
    "ReduceSum": _simple(R.sum), "ReduceMean": _simple(R.mean), "ReduceMax": _simple(R.max),
    "ReduceMin": _simple(R.min), "ReduceProd": _simple(R.prod),
    "ReduceL1": _simple(R.sum, pre=R.abs),
    "ReduceL2": _simple(R.sum, pre=lambda x: R.multiply(x, x), post=R.sqrt),
    "ReduceSumSquare": _simple(R.sum, pre=lambda x: R.multiply(x, x)),
    "ReduceLogSum": _simple(R.sum, post=R.log),
    "ReduceLogSumExp": _log_sum_exp,
}

for _op, _body in REDUCERS.items():
    converter(_op, since=1)(_reducer(_body))


def _arg(fn):
    def convert(ctx, node, inputs, attrs):
        x = inputs[0]
        axis = norm_axis(attrs.get("axis", 0), ndim_of(x))
        keep = bool(attrs.get("keepdims", 1))
        if attrs.get("select_last_index", 0):
            flipped = ctx.emit(R.flip(x, axis))
            idx = ctx.emit(R.astype(ctx.emit(fn(flipped, axis, keep)), "int64"))
            last = shape_of(x)[axis] - 1
            return R.subtract(scalar(idx, last) if isinstance(last, int) else
                              R.astype(R.full((), last, "int64"), "int64"), idx)
        return R.astype(ctx.emit(fn(x, axis, keep)), "int64")

    return convert


converter("ArgMax", since=1)(_arg(R.argmax))
converter("ArgMin", since=1)(_arg(R.argmin))

"""Reductions over axes: sum, max, min, prod, all, any, mean, argmax, argmin.

Like TVM's topi, the output is named ``<input>_red`` and reduction axis ``d`` is a
reduce_axis named ``k<d>``; ``axis=None`` reduces every dimension, ``keepdims`` keeps
reduced dimensions with extent 1.  argmax/argmin reduce (index, value) pairs with a
tuple reducer into ``<input>_red_temp`` and return its index output.
"""

from __future__ import annotations

from ember import te
from ember.ir import IntImm, Select, const
from ember.tir import op as tir_op

from .utils import compute_ax, normalize_axis, prod as shape_prod

__all__ = ["sum", "max", "min", "prod", "all", "any", "mean", "argmax", "argmin", "comm_reduce"]


def _out_shape(data, axes, keepdims):
    shape = []
    for d, dim in enumerate(data.shape):
        if d in axes:
            if keepdims:
                shape.append(IntImm(dim.dtype, 1))
        else:
            shape.append(dim)
    return tuple(shape)


def _full_indices(data, axes, raxes, keepdims, idx):
    full, it = [], iter(idx)
    for d in range(data.ndim):
        if d in axes:
            full.append(raxes[d].var)
            if keepdims:
                next(it)
        else:
            full.append(next(it))
    return full


def comm_reduce(data, axis, reducer, keepdims: bool = False, name: str | None = None):
    """Reduce ``data`` over ``axis`` with a te reducer (``te.sum`` …)."""
    if not isinstance(data, te.Tensor):
        raise TypeError(f"reduction: data must be a te.Tensor, got {type(data).__name__}")
    axes = normalize_axis(axis, data.ndim)
    raxes = {d: te.reduce_axis((0, data.shape[d]), name=f"k{d}") for d in axes}
    shape = _out_shape(data, axes, keepdims)

    def f(*idx):
        full = _full_indices(data, axes, raxes, keepdims, idx)
        return reducer(data(*full), axis=[raxes[d] for d in axes])

    return compute_ax(shape, f, name or f"{data.op.name}_red", tag="comm_reduce")


_prod_reducer = te.comm_reducer(lambda x, y: x * y, lambda t: const(1, t), name="prod")
_all_reducer = te.comm_reducer(tir_op.logical_and, lambda t: const(True, t), name="all")
_any_reducer = te.comm_reducer(tir_op.logical_or, lambda t: const(False, t), name="any")


def sum(data, axis=None, keepdims: bool = False):  # noqa: A001 - TVM's name
    """Sum of ``data`` over ``axis``."""
    return comm_reduce(data, axis, te.sum, keepdims)


def max(data, axis=None, keepdims: bool = False):  # noqa: A001
    """Maximum of ``data`` over ``axis``."""
    return comm_reduce(data, axis, te.max, keepdims)


def min(data, axis=None, keepdims: bool = False):  # noqa: A001
    """Minimum of ``data`` over ``axis``."""
    return comm_reduce(data, axis, te.min, keepdims)


def prod(data, axis=None, keepdims: bool = False):
    """Product of ``data`` over ``axis``."""
    return comm_reduce(data, axis, _prod_reducer, keepdims)


def _bool_reduce(data, axis, keepdims, reducer):
    if not data.dtype.is_bool:
        from .elemwise import cast

        data = cast(data, "bool")
    return comm_reduce(data, axis, reducer, keepdims)


def all(data, axis=None, keepdims: bool = False):  # noqa: A001
    """Whether every element over ``axis`` is true."""
    return _bool_reduce(data, axis, keepdims, _all_reducer)


def any(data, axis=None, keepdims: bool = False):  # noqa: A001
    """Whether some element over ``axis`` is true."""
    return _bool_reduce(data, axis, keepdims, _any_reducer)


def mean(data, axis=None, keepdims: bool = False):
    """Mean of ``data`` over ``axis`` (a sum, then a division by the element count)."""
    axes = normalize_axis(axis, data.ndim)
    total = sum(data, axis, keepdims)
    count = shape_prod([data.shape[d] for d in axes])
    count = tir_op.cast(count, data.dtype)
    return compute_ax(total.shape, lambda *i: total(*i) / count, "T_divide", tag="elemwise")


def _arg_reducer(pick_bigger: bool, select_last_index: bool):
    def fcombine(lhs, rhs):
        lhs_idx, lhs_val = lhs
        rhs_idx, rhs_val = rhs
        better = lhs_val > rhs_val if pick_bigger else lhs_val < rhs_val
        same = lhs_val == rhs_val
        proper = lhs_idx > rhs_idx if select_last_index else lhs_idx < rhs_idx
        keep_lhs = tir_op.logical_or(better, tir_op.logical_and(same, proper))
        return Select(keep_lhs, lhs_idx, rhs_idx), Select(better, lhs_val, rhs_val)

    def fidentity(idx_t, val_t):
        extreme = tir_op.min_value(val_t) if pick_bigger else tir_op.max_value(val_t)
        return const(-1, idx_t), extreme

    name = "argmax" if pick_bigger else "argmin"
    return te.comm_reducer(fcombine, fidentity, name=name)


def _arg_reduce(data, axis, keepdims, select_last_index, pick_bigger):
    if not isinstance(data, te.Tensor):
        raise TypeError(f"argmax/argmin: data must be a te.Tensor, got {type(data).__name__}")
    axes = normalize_axis(axis, data.ndim)
    raxes = {d: te.reduce_axis((0, data.shape[d]), name=f"k{d}") for d in axes}
    shape = _out_shape(data, axes, keepdims)
    reducer = _arg_reducer(pick_bigger, select_last_index)

    def f(*idx):
        full = _full_indices(data, axes, raxes, keepdims, idx)
        flat = None
        for d in axes:  # row-major position among the reduced axes
            v = raxes[d].var
            flat = v if flat is None else flat * data.shape[d] + v
        if flat is None:
            flat = const(0, "int32")
        return reducer((flat, data(*full)), axis=[raxes[d] for d in axes])

    temp = compute_ax(shape, f, f"{data.op.name}_red_temp", tag="comm_reduce_idx")
    return compute_ax(shape, lambda *i: temp[0](*i), f"{data.op.name}_red", tag="comm_reduce_idx")


def argmax(data, axis=None, keepdims: bool = False, select_last_index: bool = False):
    """Index of the maximum over ``axis`` (flattened position when several axes)."""
    return _arg_reduce(data, axis, keepdims, select_last_index, True)


def argmin(data, axis=None, keepdims: bool = False, select_last_index: bool = False):
    """Index of the minimum over ``axis`` (flattened position when several axes)."""
    return _arg_reduce(data, axis, keepdims, select_last_index, False)


def variance(data, axis=None, keepdims: bool = False, unbiased: bool = False):
    """Mean squared deviation from the mean over ``axis`` (divided by ``N - 1`` if unbiased)."""
    axes = normalize_axis(axis, data.ndim)
    mu = mean(data, axes, keepdims=True)
    keep = [d in axes for d in range(data.ndim)]
    sq = compute_ax(
        data.shape,
        lambda *i: _sq(data(*i) - mu(*[IntImm(x.dtype, 0) if k else x for x, k in zip(i, keep)])),
        "T_squared_difference", tag="broadcast",
    )
    total = sum(sq, axes, keepdims)
    count = shape_prod([data.shape[d] for d in axes])
    count = tir_op.cast(count - 1 if unbiased else count, data.dtype)
    return compute_ax(total.shape, lambda *i: total(*i) / count, "T_divide", tag="elemwise")


def _sq(v):
    return v * v


def std(data, axis=None, keepdims: bool = False, unbiased: bool = False):
    """Square root of ``variance``."""
    var = variance(data, axis, keepdims, unbiased)
    return compute_ax(var.shape, lambda *i: tir_op.sqrt(var(*i)), "T_sqrt", tag="elemwise")


__all__ += ["variance", "std"]

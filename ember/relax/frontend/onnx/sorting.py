"""ONNX sorting and search operators: TopK, Unique, NonZero.

TopK becomes ``relax.topk`` when k is known at import, else a packed numpy top-k.  NonZero and Unique have
outputs whose shape depends on the input values; they call the numpy-backed packed
functions of ``packed.py`` through ``call_pure_packed`` and ``match_cast`` the results
to fresh symbolic shapes, so the nodes after them compile like any dynamic-shape graph.
"""

from __future__ import annotations

from ember import relax, tir
from ember.ir import IntImm
from ember.relax import op as R

from . import packed
from .common import ONNXImportError, dtype_of, ndim_of, norm_axis, shape_of, static_shape
from .registry import converter


def fresh_dim(name: str) -> tir.Var:
    """A new symbolic int64 dim for a data-dependent output size."""
    return tir.Var(name, "int64")


def packed_result(ctx, name: str, args, dims_list, dtypes):
    """Call packed function ``name`` and bind each result to a tensor of ``dims``."""
    if len(dims_list) == 1:
        sinfo = relax.TensorStructInfo(dtype=dtypes[0], ndim=len(dims_list[0]))
    else:
        sinfo = relax.TupleStructInfo([relax.TensorStructInfo(dtype=d, ndim=len(s))
                                       for s, d in zip(dims_list, dtypes)])
    raw = ctx.emit(R.call_pure_packed(name, *args, sinfo_args=sinfo))
    outs = []
    for i, (dims, dtype) in enumerate(zip(dims_list, dtypes)):
        item = raw if len(dims_list) == 1 else ctx.emit(relax.TupleGetItem(raw, i))
        outs.append(ctx.bb.match_cast(item, relax.TensorStructInfo(dims, dtype)))
    return outs


_SELECT_MAX_K = 16


def _int(value: int) -> relax.PrimValue:
    return relax.PrimValue(IntImm("int64", int(value)))


@converter("TopK", since=1)
def topk(ctx, node, inputs, attrs):
    x = inputs[0]
    if ctx.opset < 10:
        k = int(attrs["k"])
    else:
        value = ctx.const_value(inputs[1])
        k = None if value is None else int(value.reshape(-1)[0])
    axis = norm_axis(int(attrs.get("axis", -1)), ndim_of(x), "TopK axis")
    largest = bool(attrs.get("largest", 1))
    if k is None:  # k known only at run time: the output size is data-dependent
        dims = shape_of(x)
        if dims is None:
            raise ONNXImportError("TopK: the input's shape must be known at import when k is not a constant")
        dims[axis] = fresh_dim("topk_k")
        return packed_result(ctx, packed.NAMES["topk"], [x, inputs[1], _int(axis), _int(largest)],
                             [dims, dims], [dtype_of(x), "int64"])
    length = (static_shape(x) or [None] * (axis + 1))[axis]
    if length is not None and 0 < k <= _SELECT_MAX_K and length >= 4 * k:
        # small k on a long axis: k selection passes (O(k·n)) beat topi.topk's O(n²) ranking
        from ember.topi.topk_select import topk_by_selection

        both = ctx.bb.emit_te(topk_by_selection, x, k, axis, largest, "int64", primfunc_name_hint="topk_select")
    else:
        both = ctx.emit(R.topk(x, k, axis, "both", largest, "int64"))
    return [ctx.emit(relax.TupleGetItem(both, 0)), ctx.emit(relax.TupleGetItem(both, 1))]


@converter("NonZero", since=9)
def nonzero(ctx, node, inputs, attrs):
    x = inputs[0]
    rank = ndim_of(x)
    if rank < 0:
        raise ONNXImportError("NonZero: the input's rank must be known at import")
    (out,) = packed_result(ctx, packed.NAMES["nonzero"], [x], [[rank, fresh_dim("nonzero_count")]], ["int64"])
    return out


@converter("Unique", since=11)
def unique(ctx, node, inputs, attrs):
    x = inputs[0]
    rank = ndim_of(x)
    if rank < 0:
        raise ONNXImportError("Unique: the input's rank must be known at import")
    shape = shape_of(x)
    n = fresh_dim("unique_count")
    if "axis" in attrs:
        axis = norm_axis(int(attrs["axis"]), rank, "Unique axis")
        ydims = list(shape)
        ydims[axis] = n
        inv_len = shape[axis]
        code = axis
    else:
        ydims, inv_len, code = [n], 1, -1 - rank
        for d in shape:
            inv_len = inv_len * d
    dt = dtype_of(x)
    sorted_ = int(attrs.get("sorted", 1))
    return packed_result(
        ctx, packed.NAMES["unique"], [x, _int(code),
                                      _int(sorted_)],
        [ydims, [n], [inv_len], [n]], [dt, "int64", "int64", "int64"])

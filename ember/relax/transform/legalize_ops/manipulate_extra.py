"""Legalisers of ``op/manipulate_extra.py``: collapse_sum_to / collapse_sum_like (one TE
sum over the broadcast dims) and layout_transform (a gather through the inverse index map,
padding where the new layout holds more elements)."""

from __future__ import annotations

from ember import te, tir
from ember.ir import const

from ..._arith import as_int
from ...struct_info import shape_values
from .common import emit_te, out_shape

__all__ = ["TABLE"]


def _collapse_sum(bb, call):
    target = out_shape(call)
    data_shape = shape_values(call.args[0].struct_info)
    if data_shape is None:
        raise ValueError(f"LegalizeOps: {call.op.name} needs data of known shape, got {call.args[0].struct_info}")
    lead = len(data_shape) - len(target)

    def f(x):
        reduce_axes, plan = [], []  # plan[k]: ("r", axis) or ("o", output position)
        for k, dim in enumerate(data_shape):
            t = k - lead
            if t < 0 or (as_int(target[t]) == 1 and as_int(dim) != 1):
                rv = te.reduce_axis((0, dim), name=f"k{k}")
                reduce_axes.append(rv)
                plan.append(("r", rv))
            elif as_int(target[t]) == 1:
                plan.append(("c", None))
            else:
                plan.append(("o", t))

        def index(idx):
            out = []
            for kind, v in plan:
                out.append(v.var if kind == "r" else const(0, "int64") if kind == "c" else idx[v])
            return out

        if not reduce_axes:
            return te.compute(target, lambda *i: x(*index(i)), name="collapse_sum")
        return te.compute(target, lambda *i: te.sum(x(*index(i)), axis=reduce_axes), name="collapse_sum")

    return emit_te(bb, call, f, call.args[0])


def _layout_transform(bb, call):
    a = call.attrs
    if a.axis_separators or a.input_axis_separators:
        raise NotImplementedError("LegalizeOps: relax.layout_transform with axis_separators is not supported")
    imap = a.index_map
    in_shape = shape_values(call.args[0].struct_info)
    if in_shape is None:
        raise ValueError(f"LegalizeOps: relax.layout_transform needs data of known shape, got "
                         f"{call.args[0].struct_info}")
    new_shape = out_shape(call)
    inverse = imap.non_surjective_inverse(tuple(in_shape))[0]  # padded layouts too

    def f(x):
        def body(*o):
            # the map is evaluated in its own index dtype (TVM's ConvertLayout writes int32 maps)
            dt = str(inverse.initial_indices[0].dtype) if inverse.initial_indices else "int64"
            o = [i if str(i.dtype) == dt else tir.op.cast(i, dt) for i in o]
            src = [tir.op.cast(e, "int64") if str(e.dtype) != "int64" else e for e in inverse.map_indices(o)]
            value = x(*src)
            in_bounds = None
            for s, n in zip(src, in_shape):
                cond = s < n
                in_bounds = cond if in_bounds is None else tir.And(in_bounds, cond)
            if in_bounds is None or _all_exact(imap, in_shape, new_shape):
                return value
            pad = a.pad_value if a.pad_value is not None else const(0, x.dtype)
            if str(pad.dtype) != str(x.dtype):
                pad = tir.Cast(x.dtype, pad)
            return tir.if_then_else(in_bounds, value, pad)

        return te.compute(new_shape, body, name="te_layout_transform")

    return emit_te(bb, call, f, call.args[0])


def _all_exact(imap, in_shape, new_shape) -> bool:
    """True when the new layout holds exactly as many elements as the old one (no padding)."""
    total_in = total_out = 1
    for s in in_shape:
        n = as_int(s)
        if n is None:
            return False
        total_in *= n
    for s in new_shape:
        n = as_int(s)
        if n is None:
            return False
        total_out *= n
    return total_in == total_out


TABLE = {"relax.collapse_sum_to": _collapse_sum, "relax.collapse_sum_like": _collapse_sum,
         "relax.layout_transform": _layout_transform}

"""Top-k by repeated selection: O(k·n) per row, for a small ``k`` on a long axis.

``topi.topk`` ranks every element against every other (O(n²)); when ``k`` is small it is
cheaper to pick the best element k times.  Elements are ordered by (value, then lower
index first), so pass ``j`` takes the best element strictly after pass ``j-1``'s pick in
that order — a masked arg-max reduction per pass, ties resolved as ONNX TopK requires.
"""

from __future__ import annotations

from ember import te
from ember.ir import Select, const
from ember.tir import op as tir_op

from .utils import compute_ax, get_const_int, normalize_axis

__all__ = ["topk_by_selection"]


def _reducer(largest: bool):
    """Combine (ok, index, value) triples: eligible first, then better value, then lower index."""

    def combine(lhs, rhs):
        lok, lidx, lval = lhs
        rok, ridx, rval = rhs
        better = lval > rval if largest else lval < rval
        tie = tir_op.logical_and(lval == rval, lidx < ridx)
        same_ok = lok == rok
        keep = tir_op.logical_or(lok > rok, tir_op.logical_and(same_ok, tir_op.logical_or(better, tie)))
        return Select(keep, lok, rok), Select(keep, lidx, ridx), Select(keep, lval, rval)

    def identity(ok_t, idx_t, val_t):
        return const(0, ok_t), const(-1, idx_t), const(0, val_t)

    return te.comm_reducer(combine, identity, name="topk_pick")


def topk_by_selection(data: te.Tensor, k: int, axis: int = -1, largest: bool = True, dtype="int64"):
    """``[values, indices]`` of the ``k`` largest (smallest) entries along ``axis``."""
    (axis,) = normalize_axis(axis, data.ndim)
    n = get_const_int(data.shape[axis])
    if not 0 < k <= n:
        raise ValueError(f"topi.topk_by_selection: k={k} must be in [1, {n}] for an axis of length {n}")
    reducer = _reducer(largest)
    row_shape = tuple(d for i, d in enumerate(data.shape) if i != axis)
    idx_dtype = data.shape[axis].dtype

    def at(row, pos):
        return tuple(row[:axis]) + (pos,) + tuple(row[axis:])

    picks = []
    for j in range(k):
        r = te.reduce_axis((0, data.shape[axis]), name=f"r{j}")
        prev = picks[-1] if picks else None

        def pick(*row, r=r, prev=prev):
            x = data(*at(row, r.var))
            if prev is None:
                ok = const(1, "int32")
            else:
                pv, pi = prev[2](*row), prev[1](*row)
                after = (x < pv) if largest else (x > pv)
                ok = Select(tir_op.logical_or(after, tir_op.logical_and(x == pv, r.var > pi)),
                            const(1, "int32"), const(0, "int32"))
            return reducer((ok, r.var, x), axis=r)

        picks.append(compute_ax(row_shape, pick, f"T_topk_pick{j}", tag="comm_reduce"))
    out_shape = at(row_shape, const(k, idx_dtype))

    def gather(field, cast):
        def f(*i):
            row, j = tuple(i[:axis]) + tuple(i[axis + 1:]), i[axis]
            value = cast(picks[k - 1][field](*row))
            for p in range(k - 2, -1, -1):
                value = Select(j == p, cast(picks[p][field](*row)), value)
            return value

        return f

    values = compute_ax(out_shape, gather(2, lambda v: v), "T_topk_values", tag="injective")
    indices = compute_ax(out_shape, gather(1, lambda v: tir_op.cast(v, dtype)), "T_topk_indices", tag="injective")
    return [values, indices]

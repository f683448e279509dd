"""``gather_nd`` and ``scatter_elements`` as tensor expressions.

``scatter_elements`` is written in gather form: each output element looks at the row of
updates along ``axis`` and combines those whose index names it (the last one wins for
"update", as a sequential scatter would do)."""

from __future__ import annotations

from ember import te
from ember.ir import const
from ember.tir import op as tir_op

from .utils import get_const_int, normalize_axis

__all__ = ["gather_nd", "scatter_elements"]


def gather_nd(data: te.Tensor, indices: te.Tensor, batch_dims: int = 0) -> te.Tensor:
    """``out[b.., i..] = data[b.., indices[b.., i.., :], rest..]`` (ONNX layout: the last
    dimension of ``indices`` indexes the leading dims of ``data`` after the batch dims)."""
    b = int(batch_dims)
    m = get_const_int(indices.shape[-1])
    shape = tuple(indices.shape[:-1]) + tuple(data.shape[b + m:])
    n_idx = indices.ndim - 1

    def f(*out):
        pos = out[:n_idx]
        picked = [tir_op.cast(indices(*pos, const(j, indices.shape[-1].dtype)), data.shape[b + j].dtype)
                  for j in range(m)]
        picked = [tir_op.floormod(p, data.shape[b + j]) for j, p in enumerate(picked)]
        return data(*(tuple(pos[:b]) + tuple(picked) + tuple(out[n_idx:])))

    return te.compute(shape, f, name="T_gather_nd")


_COMBINE = {
    "add": (te.sum, lambda dtype: const(0, dtype), lambda a, b: a + b),
    "max": (te.max, lambda dtype: tir_op.min_value(dtype), tir_op.max),
    "min": (te.min, lambda dtype: tir_op.max_value(dtype), tir_op.min),
}


def scatter_elements(data: te.Tensor, indices: te.Tensor, updates: te.Tensor, axis: int = 0,
                     reduction: str = "update") -> te.Tensor:
    """``data`` with ``updates`` written (or combined) at ``indices`` along ``axis``."""
    if reduction not in ("update", "mul", *_COMBINE):
        raise ValueError(f"topi.scatter_elements: reduction must be update, add, mul, max or min, got {reduction!r}")
    (axis,) = normalize_axis(axis, data.ndim)
    j = te.reduce_axis((0, indices.shape[axis]), name="j")
    dim = data.shape[axis]

    def source(p):
        """Clamped update position for output ``p`` at row step ``j``, and whether it matches."""
        q = [j.var if d == axis else tir_op.min(p[d], indices.shape[d] - 1) for d in range(data.ndim)]
        inside = [p[d] < indices.shape[d] for d in range(data.ndim) if d != axis]
        target = tir_op.floormod(tir_op.cast(indices(*q), dim.dtype), dim)
        match = target == p[axis]
        for c in inside:
            match = tir_op.logical_and(match, c)
        return q, match

    if reduction == "update":
        def last(*p):
            _, match = source(p)
            return te.max(tir_op.if_then_else(match, tir_op.cast(j.var, "int64"), const(-1, "int64")), axis=j)

        winner = te.compute(data.shape, last, name="T_scatter_last")

        def pick(*p):
            w = winner(*p)
            q = [tir_op.max(tir_op.cast(w, dim.dtype), const(0, dim.dtype)) if d == axis
                 else tir_op.min(p[d], indices.shape[d] - 1) for d in range(data.ndim)]
            return tir_op.if_then_else(w >= 0, updates(*q), data(*p))

        return te.compute(data.shape, pick, name="T_scatter_elements")

    if reduction == "mul":
        prod = te.comm_reducer(lambda a, b: a * b, lambda t: const(1, t), name="prod")

        def combined(*p):
            q, match = source(p)
            return prod(tir_op.if_then_else(match, updates(*q), const(1, data.dtype)), axis=j)

        acc = te.compute(data.shape, combined, name="T_scatter_acc")
        return te.compute(data.shape, lambda *p: data(*p) * acc(*p), name="T_scatter_elements")

    reducer, identity, merge = _COMBINE[reduction]

    def combined(*p):
        q, match = source(p)
        return reducer(tir_op.if_then_else(match, updates(*q), identity(data.dtype)), axis=j)

    acc = te.compute(data.shape, combined, name="T_scatter_acc")
    return te.compute(data.shape, lambda *p: merge(data(*p), acc(*p)), name="T_scatter_elements")

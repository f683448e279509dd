"""Index-driven data movement: gather_nd and scatter_elements.

``scatter_elements`` is written as a reduction over the positions of ``indices``: the
output element takes (or combines with) the updates whose index along ``axis`` points
at it, the last one winning for ``reduction="update"``.  Quadratic, simple, correct.
"""

from __future__ import annotations

from ember import te
from ember.ir import Select, const
from ember.tir import op as tir_op

from .utils import compute_ax, get_const_int, normalize_axis

__all__ = ["gather_nd", "scatter_elements"]


def gather_nd(data, indices, batch_dims: int = 0) -> te.Tensor:
    """``out[y..., z...] = data[indices[0, y...], …, indices[m-1, y...], z...]``."""
    if batch_dims:
        raise NotImplementedError("topi.gather_nd: batch_dims > 0 is not implemented")
    m = get_const_int(indices.shape[0])
    if m > data.ndim:
        raise ValueError(f"topi.gather_nd: indices.shape[0]={m} exceeds data's {data.ndim} dimensions")
    shape = indices.shape[1:] + data.shape[m:]
    n_idx = indices.ndim - 1

    def f(*i):
        y, z = i[:n_idx], i[n_idx:]
        src = []
        for d in range(m):
            v = indices(const(d, indices.shape[0].dtype), *y)
            src.append(v if v.dtype is data.shape[d].dtype else tir_op.cast(v, data.shape[d].dtype))
        return data(*src, *z)

    return compute_ax(shape, f, "T_gather_nd", tag="injective")


_COMBINE = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "min": tir_op.min,
    "max": tir_op.max,
}


def scatter_elements(data, indices, updates, axis: int = 0, reduction: str = "update") -> te.Tensor:
    """``data`` with ``updates`` written (or combined) at ``indices`` along ``axis``."""
    if reduction not in ("update", *_COMBINE):
        raise ValueError(f"topi.scatter_elements: reduction must be 'update', 'add', 'mul', 'min' or "
                         f"'max', got {reduction!r}")
    (axis,) = normalize_axis(axis, data.ndim)
    if indices.ndim != data.ndim:
        raise ValueError(f"topi.scatter_elements: indices need {data.ndim} dimensions, got {indices.ndim}")
    k = te.reduce_axis((0, indices.shape[axis]), name="k")
    dim = data.shape[axis]

    def hit(i):
        """(does indices position i-with-k-on-axis point at i?, the update there)."""
        src = [k.var if d == axis else tir_op.min(i[d], indices.shape[d] - 1) for d in range(data.ndim)]
        pos = indices(*src)
        pos = pos if pos.dtype is dim.dtype else tir_op.cast(pos, dim.dtype)
        pos = Select(pos < 0, pos + dim, pos)
        conds = [i[d] < indices.shape[d] for d in range(data.ndim) if d != axis]
        return tir_op.all(*conds, pos == i[axis]), updates(*src)

    if reduction == "update":
        last = te.comm_reducer(
            lambda x, y: (Select(y[0] >= x[0], y[0], x[0]), Select(y[0] >= x[0], y[1], x[1])),
            lambda t0, t1: (const(-1, t0), const(0, t1)), name="last")

        def found(*i):
            ok, value = hit(i)
            return last((Select(ok, k.var, const(-1, k.var.dtype)), value), axis=k)

        pick, value = compute_ax(data.shape, found, "T_scatter_elements_red", tag="comm_reduce")
        return compute_ax(data.shape, lambda *i: Select(pick(*i) >= 0, value(*i), data(*i)),
                          "T_scatter_elements", tag="injective")
    combine = _COMBINE[reduction]
    identity = {
        "add": const(0, data.dtype), "mul": const(1, data.dtype),
        "min": tir_op.max_value(data.dtype), "max": tir_op.min_value(data.dtype),
    }[reduction]
    red = te.comm_reducer(lambda x, y: combine(x, y), lambda t: identity, name=f"scatter_{reduction}")

    def count(*i):
        return te.sum(Select(hit(i)[0], const(1, "int32"), const(0, "int32")), axis=k)

    def fold(*i):
        ok, value = hit(i)
        return red(Select(ok, value, identity), axis=k)

    hits = compute_ax(data.shape, count, "T_scatter_elements_count", tag="comm_reduce")
    total = compute_ax(data.shape, fold, "T_scatter_elements_red", tag="comm_reduce")
    return compute_ax(
        data.shape, lambda *i: Select(hits(*i) > 0, combine(data(*i), total(*i)), data(*i)),
        "T_scatter_elements", tag="injective",
    )

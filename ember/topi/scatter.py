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

__all__ = ["gather_nd", "scatter_elements"]  # COMBINE and scatter_by_reduction serve scatter_nd too


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


COMBINE = {  # the combining modes of the scatters besides "update"
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "min": tir_op.min,
    "max": tir_op.max,
}


def scatter_elements(data, indices, updates, axis: int = 0, reduction: str = "update") -> te.Tensor:
    """``data`` with ``updates`` written (or combined) at ``indices`` along ``axis``."""
    if reduction not in ("update", *COMBINE):
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

    return scatter_by_reduction(data, hit, k, reduction, "T_scatter_elements", "scatter")


def scatter_by_reduction(data, hit, k, mode: str, name: str, reducer_prefix: str) -> te.Tensor:
    """A scatter into ``data`` written as reductions over the update index ``k``:
    ``hit(i)`` gives (does update ``k`` land on output position ``i``?, that update).  With
    ``mode="update"`` the last update that lands wins; otherwise the updates that land are
    combined by ``mode`` and then with ``data``.  Tensors are named ``name`` + suffix."""
    if mode == "update":
        last = te.comm_reducer(
            lambda x, y: (Select(y[0] >= x[0], y[0], x[0]), Select(y[0] >= x[0], y[1], x[1])),
            lambda t0, t1: (const(-1, t0), const(0, t1)), name="last")

        def found(*i):
            ok, value = hit(i)
            return last((Select(ok, k.var, const(-1, k.var.dtype)), value), axis=k)

        pick, value = compute_ax(data.shape, found, f"{name}_red", tag="comm_reduce")
        return compute_ax(data.shape, lambda *i: Select(pick(*i) >= 0, value(*i), data(*i)),
                          name, tag="injective")
    combine = COMBINE[mode]
    identity = {
        "add": const(0, data.dtype), "mul": const(1, data.dtype),
        "min": tir_op.max_value(data.dtype), "max": tir_op.min_value(data.dtype),
    }[mode]
    red = te.comm_reducer(lambda x, y: combine(x, y), lambda t: identity, name=f"{reducer_prefix}_{mode}")

    def count(*i):
        return te.sum(Select(hit(i)[0], const(1, "int32"), const(0, "int32")), axis=k)

    def fold(*i):
        ok, value = hit(i)
        return red(Select(ok, value, identity), axis=k)

    hits = compute_ax(data.shape, count, f"{name}_count", tag="comm_reduce")
    total = compute_ax(data.shape, fold, f"{name}_red", tag="comm_reduce")
    return compute_ax(
        data.shape, lambda *i: Select(hits(*i) > 0, combine(data(*i), total(*i)), data(*i)),
        name, tag="injective",
    )

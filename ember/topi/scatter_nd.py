"""``scatter_nd``: ``data`` with ``updates`` written (or combined) at the index tuples held
in the last dimension of ``indices`` (ONNX ScatterND's layout).

``indices`` has shape ``Y + (m,)``, ``updates`` shape ``Y + data.shape[m:]``.  Negative
indices count from the end of their dimension.

``scatter_nd`` is an extern TIR loop nest: copy ``data``, then visit the index tuples in
order and store (or combine) each update slice — linear in the sizes, and sequential over
the tuples so that with ``mode="update"`` the last of repeated tuples wins.
``scatter_nd_te`` is the same op as a pure tensor expression (a reduction over all
tuples for each output element, quadratic) for schedules that need compute blocks.
"""

from __future__ import annotations

from ember import te
from ember.ir import Select, const
from ember.tir import op as tir_op

from .scatter import COMBINE, scatter_by_reduction
from .utils import get_const_int

__all__ = ["scatter_nd", "scatter_nd_te"]


def _unravel(flat, dims):
    """The multi-index of row-major position ``flat`` in ``dims`` (a list of PrimExprs)."""
    out = []
    for d in reversed(dims):
        out.append(flat % d)
        flat = flat // d
    return list(reversed(out))


def _loops(extents, body_fn):
    """Nested serial loops over ``extents``; ``body_fn(vars)`` makes the innermost Stmt."""
    from ember.tir import For, ForKind, Var

    vs = [Var(f"i{n}", e.dtype) for n, e in enumerate(extents)]
    stmt = body_fn(vs)
    for v, e in reversed(list(zip(vs, extents))):
        stmt = For(v, const(0, e.dtype), e, ForKind.SERIAL, stmt)
    return stmt


def scatter_nd(data, indices, updates, mode: str = "update") -> te.Tensor:
    """A copy of ``data`` with ``updates`` scattered at ``indices`` (last dim = index tuple)."""
    from ember.tir import BufferLoad, BufferStore, SeqStmt

    _check(data, indices, updates, mode)
    m = get_const_int(indices.shape[-1])
    batch = list(indices.shape[:-1])
    combine = COMBINE.get(mode)

    def body(ins, outs):
        d, idx, upd = ins
        (out,) = outs
        copy = _loops(list(d.shape), lambda i: BufferStore(out, BufferLoad(d, tuple(i)), tuple(i)))

        def write(iv):
            y, rest = iv[:len(batch)], iv[len(batch):]
            pos = []
            for k in range(m):
                dim = d.shape[k]
                p = BufferLoad(idx, tuple(y) + (const(k, idx.shape[-1].dtype),))
                p = p if p.dtype is dim.dtype else tir_op.cast(p, dim.dtype)
                pos.append(Select(p < 0, p + dim, p))
            target = tuple(pos) + tuple(rest)
            value = BufferLoad(upd, tuple(iv))
            if combine is not None:
                value = combine(BufferLoad(out, target), value)
            return BufferStore(out, value, target)

        scatter = _loops(batch + list(d.shape[m:]), write)
        return SeqStmt((copy, scatter))

    return te.extern(data.shape, [data, indices, updates], body, name="T_scatter_nd", dtype=data.dtype)


def _check(data, indices, updates, mode):
    if mode not in ("update", *COMBINE):
        raise ValueError(f"topi.scatter_nd: mode must be 'update', 'add', 'mul', 'min' or 'max', got {mode!r}")
    m = get_const_int(indices.shape[-1])
    if m > data.ndim:
        raise ValueError(f"topi.scatter_nd: index tuples of length {m} exceed data's {data.ndim} dimensions")
    want = indices.ndim - 1 + data.ndim - m
    if updates.ndim != want:
        raise ValueError(f"topi.scatter_nd: updates need {want} dimensions (indices {indices.ndim - 1} + data "
                         f"{data.ndim - m}), got {updates.ndim}")


def scatter_nd_te(data, indices, updates, mode: str = "update") -> te.Tensor:
    """``scatter_nd`` as a pure tensor expression (quadratic; see the module docstring)."""
    _check(data, indices, updates, mode)
    m = get_const_int(indices.shape[-1])
    batch = list(indices.shape[:-1])
    count = const(1, "int64")
    for d in batch:
        count = count * tir_op.cast(d, "int64") if d.dtype != "int64" else count * d
    k = te.reduce_axis((0, count), name="k")

    def hit(i):
        """(does the k-th index tuple point at output position i?, its update there)."""
        y = _unravel(k.var, [tir_op.cast(d, "int64") for d in batch])
        y = [v if v.dtype is d.dtype else tir_op.cast(v, d.dtype) for v, d in zip(y, batch)]
        conds = []
        for d in range(m):
            dim = data.shape[d]
            pos = indices(*y, const(d, indices.shape[-1].dtype))
            pos = pos if pos.dtype is dim.dtype else tir_op.cast(pos, dim.dtype)
            conds.append(Select(pos < 0, pos + dim, pos) == i[d])
        return tir_op.all(*conds), updates(*y, *i[m:])

    return scatter_by_reduction(data, hit, k, mode, "T_scatter_nd", "scatter_nd")

"""``has_reshape_pattern(prim_func)``: whether a PrimFunc only copies its input into its
output with the element order kept (a reshape / expand_dims / squeeze that may be lowered
to a view).  The function must hold one store ``out[...] = in[...]`` (no reduction, no
arithmetic); with static extents the row-major element index of the store and of the load
are compared at sample points of the block iterators."""

from __future__ import annotations

import itertools

from ember.ir import IntImm
from ember.tir.functor import post_order_visit, substitute
from ember.tir.stmt import Block, BufferStore, IterVarType

from .._arith import as_int, simplify

__all__ = ["has_reshape_pattern"]

_SAMPLES = 24


def _linear(indices, shape) -> object:
    total = None
    for idx, dim in zip(indices, shape):
        total = idx if total is None else total * dim + idx
    return total


def _evaluate(expr, values: dict) -> int | None:
    return as_int(simplify(substitute(expr, lambda v: values.get(id(v)))))


def _sample_points(iter_vars, limit: int):
    extents = [as_int(iv.dom.extent) for iv in iter_vars]
    mins = [as_int(iv.dom.min) for iv in iter_vars]
    if any(e is None for e in extents) or any(m is None for m in mins):
        return None
    corners = [(m, m + e - 1) if e > 1 else (m,) for m, e in zip(mins, extents)]
    points = list(itertools.islice(itertools.product(*corners), limit))
    seed = 12345
    for _ in range(limit):
        point = []
        for m, e in zip(mins, extents):
            seed = (seed * 1103515245 + 12345) % (1 << 31)
            point.append(m + seed % max(e, 1))
        points.append(tuple(point))
    return points


def has_reshape_pattern(func) -> bool:
    """True when ``func`` is a pure element-order-preserving copy (see the module doc)."""
    stores, blocks = [], []

    def visit(n):
        if isinstance(n, BufferStore):
            stores.append(n)
        elif isinstance(n, Block):
            blocks.append(n)

    post_order_visit(func.body, visit)
    if len(stores) != 1:
        return False
    if any(b.init is not None or any(iv.iter_type == IterVarType.CommReduce for iv in b.iter_vars)
           for b in blocks):
        return False
    store = stores[0]
    load = store.value
    from ember.tir import BufferLoad

    if not isinstance(load, BufferLoad) or load.buffer is store.buffer:
        return False
    if load.buffer.dtype != store.buffer.dtype:
        return False
    dst_shape, src_shape = store.buffer.shape, load.buffer.shape
    if any(as_int(d) is None for d in (*dst_shape, *src_shape)):
        return True  # symbolic extents: the structure is all that is checked
    if _numel(dst_shape) != _numel(src_shape):
        return False
    owner = [b for b in blocks if _contains(b, store)]
    iter_vars = [iv for b in owner for iv in b.iter_vars]
    points = _sample_points(iter_vars, _SAMPLES)
    if points is None:
        return True
    dst, src = _linear(store.indices, dst_shape), _linear(load.indices, src_shape)
    for point in points:
        values = {id(iv.var): IntImm(iv.var.dtype, p) for iv, p in zip(iter_vars, point)}
        a, b = _evaluate(dst, values), _evaluate(src, values)
        if a is None or b is None:
            return True
        if a != b:
            return False
    return True


def _numel(shape) -> int:
    total = 1
    for d in shape:
        total *= as_int(d)
    return total


def _contains(block, store) -> bool:
    found = []
    post_order_visit(block.body, lambda n: found.append(True) if n is store else None)
    return bool(found)

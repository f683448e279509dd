"""The buffer regions a block body reads and writes, as ``T.reads`` / ``T.writes`` show.

Accesses are collected in pre-order (first access first).  Per buffer and dimension,
indices that are all the same give a point range; indices that differ only by a
constant (``A[i - 1]``, ``A[i + 1]``) give the covering range; anything else covers
the whole dimension (conservative).  Buffers the block writes are left out of its reads.
"""

from __future__ import annotations

from ember.ir import Add, IntImm, Range, Sub, structural_equal
from ember.tir import BufferLoad, BufferRegion, BufferStore, pre_order_visit

__all__ = ["access_regions", "region_of"]


def _split_const(e):
    if isinstance(e, IntImm):
        return None, e.value
    if isinstance(e, Add) and isinstance(e.b, IntImm):
        return e.a, e.b.value
    if isinstance(e, Sub) and isinstance(e.b, IntImm):
        return e.a, -e.b.value
    return e, 0


def _dim_range(indices: list, extent):
    first = indices[0]
    if all(i is first or structural_equal(i, first, map_free_vars=False) for i in indices[1:]):
        return Range(first, 1)
    parts = [_split_const(i) for i in indices]
    base = parts[0][0]
    same_base = all(
        (b is None and base is None)
        or (b is not None and base is not None and structural_equal(b, base, map_free_vars=False))
        for b, _ in parts
    )
    if not same_base:
        return Range(0, extent)
    lo = min(c for _, c in parts)
    hi = max(c for _, c in parts)
    start = lo if base is None else (base + lo if lo else base)
    return Range(start, hi - lo + 1)


def region_of(buffer, accesses: list) -> BufferRegion:
    """The region covering every index tuple in ``accesses`` of ``buffer``."""
    dims = []
    for d, extent in enumerate(buffer.shape):
        dims.append(_dim_range([idx[d] for idx in accesses], extent))
    return BufferRegion(buffer, tuple(dims))


def access_regions(body, written_first=()) -> tuple[tuple, tuple]:
    """``(reads, writes)`` of ``body``; ``written_first`` orders the written buffers."""
    reads: dict = {}
    writes: dict = {b: [] for b in written_first}

    def visit(x):
        if isinstance(x, BufferLoad):
            reads.setdefault(x.buffer, []).append(x.indices)
        elif isinstance(x, BufferStore):
            writes.setdefault(x.buffer, []).append(x.indices)

    pre_order_visit(body, visit)
    write_regions = tuple(region_of(b, acc) for b, acc in writes.items() if acc)
    read_regions = tuple(region_of(b, acc) for b, acc in reads.items() if b not in writes)
    return read_regions, write_regions

"""Primitives that edit one block in place: reorder_block_iter_var, unsafe_set_dtype,
annotate_buffer_access.

``reorder_block_iter_var(block, order)`` permutes the block's iterators (and their
bindings); nothing else changes.  ``unsafe_set_dtype(block, i, dtype)`` gives the i-th
buffer the block writes (an allocated buffer, never a parameter) another dtype: stores
into it cast to the new dtype and loads from it cast back, so the program means the
same up to the precision of the new type (hence "unsafe").
``annotate_buffer_access(block, i, "read" | "write", index_map)`` declares the region of
the i-th read (write) buffer as ``[begin, end)`` per dimension, computed from the block
iterators by ``index_map`` (its outputs are begin, end pairs), and records the index in
the ``explicit_read_region`` / ``explicit_write_region`` annotation so the region is
not re-derived from the body.
"""

from __future__ import annotations

from ember.ir import PointerType, Var, replace
from ember.ir.expr import Cast
from ember.runtime.dtype import DataType
from ember.tir.buffer import BufferLoad, MatchBufferRegion
from ember.tir.functor import IRMutator, collect
from ember.tir.stmt import BlockRealize, BufferStore

from .analysis import replace_stmts
from .errors import ScheduleError

__all__ = ["reorder_block_iter_var", "unsafe_set_dtype", "annotate_buffer_access", "range_pairs",
           "unsafe_hide_buffer_access"]


def reorder_block_iter_var(func, realize: BlockRealize, new_order):
    block = realize.block
    n = len(block.iter_vars)
    order = list(new_order)
    if any(not isinstance(k, int) for k in order) or sorted(order) != list(range(n)):
        raise ScheduleError(f"reorder_block_iter_var: new_order must be a permutation of 0..{n - 1} "
                            f"(one entry per iterator of block {block.name_hint!r}), got {order}",
                            func, block=block)
    new_block = replace(block, iter_vars=tuple(block.iter_vars[k] for k in order))
    new_realize = replace(realize, iter_values=tuple(realize.iter_values[k] for k in order),
                          block=new_block)
    return replace_stmts(func, {realize: new_realize})


class _Retype(IRMutator):
    """Swap buffers for retyped copies, casting what is stored into and loaded from them."""

    def __init__(self, mapping: dict):
        super().__init__()
        self.mapping = mapping  # id(old) -> (old, new)

    def visit_Buffer(self, buf):
        hit = self.mapping.get(id(buf))
        return buf if hit is None else hit[1]

    def visit_BufferStore(self, s: BufferStore):
        hit = self.mapping.get(id(s.buffer))
        if hit is None:
            return self.generic_visit(s)
        value, indices = self.visit(s.value), self.visit(s.indices)
        return BufferStore(hit[1], _cast(hit[1].dtype, value), indices)

    def visit_BufferLoad(self, e: BufferLoad):
        hit = self.mapping.get(id(e.buffer))
        if hit is None:
            return self.generic_visit(e)
        return _cast(hit[0].dtype, BufferLoad(hit[1], self.visit(e.indices)))


def _cast(dtype, value):
    return value if value.dtype == dtype else Cast(dtype, value)


def _retyped(buf, dtype: DataType):
    ann = buf.data.type_annotation
    if isinstance(ann, PointerType):
        ann = PointerType(dtype, ann.storage_scope)
    return replace(buf, dtype=dtype, data=Var(buf.data.name, buf.data.dtype, ann))


def unsafe_set_dtype(func, realize: BlockRealize, buffer_index: int, dtype):
    block = realize.block
    if not isinstance(buffer_index, int) or not 0 <= buffer_index < len(block.writes):
        names = ", ".join(f"{k}: {r.buffer.name}" for k, r in enumerate(block.writes)) or "none"
        raise ScheduleError(f"unsafe_set_dtype: buffer_index {buffer_index!r} is out of range for block "
                            f"{block.name_hint!r} (its writes: {names})", func, block=block)
    buffer = block.writes[buffer_index].buffer
    if any(b is buffer for b in func.buffer_map.values()):
        raise ScheduleError(f"unsafe_set_dtype: buffer {buffer.name!r} is a function parameter (an input "
                            "or output); only allocated buffers can change dtype", func, block=block)
    try:
        dtype = DataType(dtype)
    except (TypeError, ValueError) as err:
        raise ScheduleError(f"unsafe_set_dtype: {err}", func, block=block) from None
    if dtype == buffer.dtype:
        return func
    mapping = {id(buffer): (buffer, _retyped(buffer, dtype))}
    for m in collect(func.body, lambda x: isinstance(x, MatchBufferRegion) and x.source.buffer is buffer):
        mapping[id(m.buffer)] = (m.buffer, _retyped(m.buffer, dtype))
    return replace(func, body=_Retype(mapping).visit(func.body))


def range_pairs(ranges, ndim: int) -> list:
    """``gen_new_ranges``' output flattened to begin, end, begin, end …; a single expression
    ``p`` stands for ``(p, p + 1)``.  Output already flat (2 * ndim expressions, as a
    printed trace replays it) is returned as it is."""
    ranges = list(ranges)
    if ndim and len(ranges) == 2 * ndim and not any(isinstance(r, list | tuple) for r in ranges):
        return ranges
    out = []
    for r in ranges:
        if isinstance(r, list | tuple):
            if len(r) != 2:
                raise ValueError(f"annotate_buffer_access: a range is (begin, end), got {r!r}")
            out += [r[0], r[1]]
        else:
            out += [r, r + 1]
    return out


def annotate_buffer_access(func, realize: BlockRealize, buffer_index: int, buf_type: str, index_map):
    from ember.ir import Range
    from ember.tir.buffer import BufferRegion

    from . import _arith

    block = realize.block
    if buf_type not in ("read", "write"):
        raise ScheduleError(f"annotate_buffer_access: buf_type must be 'read' or 'write', got {buf_type!r}",
                            func, block=block)
    regions = block.reads if buf_type == "read" else block.writes
    if not isinstance(buffer_index, int) or not 0 <= buffer_index < len(regions):
        raise ScheduleError(f"annotate_buffer_access: block {block.name_hint!r} has no {buf_type} buffer "
                            f"{buffer_index!r} (it has {len(regions)})", func, block=block)
    buf = regions[buffer_index].buffer
    if len(index_map.initial_indices) != len(block.iter_vars):
        raise ScheduleError(f"annotate_buffer_access: the range function takes {len(index_map.initial_indices)} "
                            f"iterators but block {block.name_hint!r} has {len(block.iter_vars)}",
                            func, block=block)
    flat = index_map.map_indices([iv.var for iv in block.iter_vars])
    if len(flat) != 2 * len(buf.shape):
        raise ScheduleError(f"annotate_buffer_access: buffer {buf.name!r} has {len(buf.shape)} dimensions but "
                            f"{len(flat) // 2} ranges were given", func, block=block)
    new_region = BufferRegion(buf, tuple(Range(flat[2 * d], _arith.simplify(flat[2 * d + 1] - flat[2 * d]))
                                         for d in range(len(buf.shape))))
    regions = regions[:buffer_index] + (new_region,) + regions[buffer_index + 1:]
    key = f"explicit_{buf_type}_region"
    marked = [int(x) for x in block.annotations.get(key, [])]
    if buffer_index not in marked:
        marked.append(buffer_index)
    new_block = replace(block, **{buf_type + "s": regions},
                        annotations={**block.annotations, key: marked})
    return replace_stmts(func, {block: new_block})


def unsafe_hide_buffer_access(func, realize: BlockRealize, buf_type: str, buf_index_array):
    """Drop the ``buf_index_array``-th regions from the block's reads (``buf_type`` "read") or
    writes ("write"): dependence analysis stops seeing them (an index buffer read to address
    another, say). Unsafe by design: nothing checks that hiding them keeps the schedule valid."""
    block = realize.block
    if buf_type not in ("read", "write"):
        raise ScheduleError(f"unsafe_hide_buffer_access: buf_type must be 'read' or 'write', got {buf_type!r}",
                            func, block=block)
    regions = block.reads if buf_type == "read" else block.writes
    hidden = {int(i) for i in buf_index_array}
    bad = sorted(i for i in hidden if not 0 <= i < len(regions))
    if bad:
        raise ScheduleError(f"unsafe_hide_buffer_access: block {block.name_hint!r} has {len(regions)} "
                            f"{buf_type} regions, so index {bad[0]} is out of range", func, block=block)
    kept = tuple(r for i, r in enumerate(regions) if i not in hidden)
    return replace_stmts(func, {block: replace(block, **{buf_type + "s": kept})})

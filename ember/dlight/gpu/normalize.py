"""Put a PrimFunc in the form the GPU row rules match, without changing what it computes.

``squeeze_intermediates(func)``: an intermediate buffer (allocated in the root block)
with unit dimensions — the keepdims row result ``red[i, 0]`` of a legalized layer norm —
is replaced by one without them, every access dropping those indices.  Readers then
index it with block iterators only, which ``reverse_compute_at`` needs to move them
under a row loop.  Works for symbolic shapes (where ``transform_layout`` cannot).
"""

from __future__ import annotations

from ember.ir import replace
from ember.tir import Block, BufferLoad, BufferStore, PrimFunc, ir_transform
from ember.tir.analysis import complete_block_access
from ember.tir.buffer import decl_buffer

from ..analysis import const_int


def _squeezed(buffer):
    keep = [d for d, e in enumerate(buffer.shape) if const_int(e) != 1]
    if len(keep) == len(buffer.shape) or not keep:
        return None
    new = decl_buffer(tuple(buffer.shape[d] for d in keep), buffer.dtype, buffer.name,
                      scope=buffer.scope())
    return new, keep


def squeeze_intermediates(func: PrimFunc) -> PrimFunc:
    """``func`` with the unit dimensions of its root-block intermediates removed."""
    root = func.body.block if hasattr(func.body, "block") else None
    if root is None or root.name_hint != "root" or not root.alloc_buffers:
        return func
    table = {}
    for buf in root.alloc_buffers:
        hit = _squeezed(buf)
        if hit is not None:
            table[buf] = hit
    if not table:
        return func

    def post(node):
        if isinstance(node, (BufferLoad, BufferStore)) and node.buffer in table:
            new, keep = table[node.buffer]
            return replace(node, buffer=new, indices=tuple(node.indices[d] for d in keep))
        if isinstance(node, Block):
            if node.name_hint == "root":
                allocs = tuple(table[b][0] if b in table else b for b in node.alloc_buffers)
                return replace(node, alloc_buffers=allocs)
            if any(r.buffer in table for r in tuple(node.reads) + tuple(node.writes)):
                return complete_block_access(node)
        return None

    body = ir_transform(func.body, None, post, ["BufferLoad", "BufferStore", "Block"])
    return replace(func, body=body)

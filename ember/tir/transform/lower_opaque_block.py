"""LowerOpaqueBlock: remove blocks, leaving plain loops, conditions and allocations.

Assumes ConvertBlocksToOpaque (no block iterators) and LowerInitBlock (no ``init``)
ran first.  Each opaque ``BlockRealize`` becomes, at the same position:

* its predicate, when not constantly true, as ``IfThenElse(predicate, …)``;
* each of its ``alloc_buffers`` as ``Allocate(data, dtype, shape)`` + ``DeclBuffer``;
* each ``match_buffers`` entry substituted away: loads and stores of the matched
  buffer become accesses of the source buffer at ``region.min + index`` (leading
  source dimensions beyond the matched buffer's rank must have extent 1), and the
  matched buffer's data / shape / stride / offset variables are replaced by the
  source's (for an on-chip source: by ``region_markers``, resolved after compaction);
* the block's body.  Block annotations are dropped, except ``buffer_dim_align``
  (from ``storage_align``), which moves to the buffer's ``Allocate`` as
  ``{"buffer_dim_align": ((axis, factor, offset), …)}`` for CompactBufferAllocation
  to apply.  Loops keep their kind and annotations, except that ``pragma_*``
  annotations become ``AttrStmt(loop_var, key, value)`` around the loop and a loop
  of extent 1 without annotations is replaced by its body (as TVM).
"""

from __future__ import annotations

from ember.ir import IntImm, Range, StringImm, Var, const, replace
from ember.transform import Pass

from ..buffer import Buffer, BufferLoad, BufferRegion, MatchBufferRegion
from ..function import PrimFunc
from ..functor import IRMutator, post_order_visit, substitute
from ..stmt import (
    Allocate, AttrStmt, Block, BlockRealize, BufferStore, DeclBuffer, For, ForKind, IfThenElse,
)
from ._common import is_const, make_pass
from .convert_blocks_to_opaque import CARRIED_LOOPS
from .region_markers import make_symbols, uses_markers

__all__ = ["lower_opaque_block", "LowerOpaqueBlock", "DIM_ALIGN"]

DIM_ALIGN = "buffer_dim_align"


class _Lowerer(IRMutator):
    def __init__(self, dim_align: dict[int, list], carried: dict[int, list] | None = None):
        super().__init__()
        self.dim_align = dim_align
        self.carried = carried or {}

    def visit_For(self, loop: For):
        if loop.kind == ForKind.THREAD_BINDING:
            return self.generic_visit(loop)
        if is_const(loop.extent, 1) and not loop.annotations:
            # a unit loop runs its body once, with the loop variable at its minimum
            return self.visit(substitute(loop.body, {loop.loop_var: loop.min}))
        loop = self.generic_visit(loop)
        pragmas = [(k, v) for k, v in loop.annotations.items() if k.startswith("pragma_")]
        if not pragmas:
            return loop
        out = replace(loop, annotations={k: v for k, v in loop.annotations.items()
                                         if not k.startswith("pragma_")})
        for key, value in reversed(pragmas):  # pragmas become attributes around the loop, as TVM
            out = AttrStmt(loop.loop_var, key, _attr_value(value), out)
        return out

    def visit_BlockRealize(self, realize: BlockRealize):
        block = realize.block
        if block.iter_vars or realize.iter_values:
            raise ValueError(
                f"LowerOpaqueBlock: block {block.name_hint!r} still has iterators; "
                "run ConvertBlocksToOpaque first"
            )
        if block.init is not None:
            raise ValueError(
                f"LowerOpaqueBlock: block {block.name_hint!r} still has an init statement; "
                "run LowerInitBlock first"
            )
        body = block.body
        for match in block.match_buffers:
            body = _inline_match_buffer(body, match, _region_mask(block, match.source.buffer))
        body = self.visit(body)
        for buf in reversed(block.alloc_buffers):
            align = self.dim_align.get(id(buf.data))
            annotations = {DIM_ALIGN: tuple(align)} if align else {}
            carried = self.carried.get(id(buf.data))
            if carried:
                annotations[CARRIED_LOOPS] = tuple(carried)
            body = Allocate(buf.data, buf.dtype, _allocation_shape(buf), const(True), DeclBuffer(buf, body),
                            annotations)
        pragmas = [(k, v) for k, v in (block.annotations or {}).items() if k.startswith("pragma_")]
        for key, value in reversed(pragmas):  # a block's pragmas wrap its body, as TVM (node 0)
            body = AttrStmt(const(0, "int32"), key, _attr_value(value), body)
        predicate = self.visit(realize.predicate)
        if not (isinstance(predicate, IntImm) and predicate.value):
            body = IfThenElse(predicate, body)
        return body


def _allocation_shape(buf: Buffer) -> tuple:
    """The extents to allocate: the shape, except that with strides each inner extent is the
    ratio of consecutive strides (a row padded to stride 17 allocates 17 elements, not 16)."""
    if not buf.strides or len(buf.strides) != len(buf.shape):
        return tuple(buf.shape)
    from ember.arith import Analyzer

    ana = Analyzer()
    out = list(buf.shape)
    for i in range(len(out) - 1, 0, -1):
        out[i] = ana.simplify(buf.strides[i - 1] // buf.strides[i])
    return tuple(out)


def _attr_value(value):
    """An annotation value as an AttrStmt value: strings, ints and floats become immediates."""
    if isinstance(value, str):
        return StringImm(value)
    if isinstance(value, bool | int):
        return const(int(value), "int32")
    if isinstance(value, float):
        return const(value, "float32")
    return value


def _row_major_strides(buf: Buffer) -> list:
    if buf.strides:
        return list(buf.strides)
    strides, acc = [], const(1, "int32")
    for dim in reversed(buf.shape):
        strides.append(acc)
        acc = acc * dim
    return strides[::-1]


class _MatchInliner(IRMutator):
    """Rewrite accesses of ``match.buffer`` into accesses of its source region."""

    def __init__(self, match: MatchBufferRegion, mask: int = 0):
        super().__init__()
        self.mask = mask
        self.target = match.buffer
        self.source = match.source.buffer
        region = match.source.region
        lead = len(region) - len(self.target.shape)
        if lead < 0:
            raise ValueError(
                f"match_buffer {self.target.name!r}: expected a source region of at least "
                f"{len(self.target.shape)} dimensions, got {len(region)}"
            )
        for r in region[:lead]:
            if not (isinstance(r.extent, IntImm) and r.extent.value == 1):
                raise ValueError(
                    f"match_buffer {self.target.name!r}: leading source dimensions must have "
                    f"extent 1, got extent {r.extent!r}"
                )
        self.lead_mins = [r.min for r in region[:lead]]
        self.mins = [r.min for r in region[lead:]]
        self.var_map = self._bind_symbols(match, region, lead)

    def _bind_symbols(self, match, region, lead) -> dict:
        target, source = self.target, self.source
        if self.mask and uses_markers(source):  # on-chip source: symbols resolved after compaction
            return self._bind_markers(region, lead)
        vmap: dict = {target.data: source.data}
        for dim, r in zip(target.shape, region[lead:]):
            if isinstance(dim, Var):
                vmap[dim] = r.extent
        strides = _row_major_strides(source)
        for s, src in zip(target.strides, strides[lead:]):
            if isinstance(s, Var):
                vmap[s] = src
        if isinstance(target.elem_offset, Var):
            vmap[target.elem_offset] = source.offset_of([r.min for r in region])
        return vmap

    def _bind_markers(self, region, lead) -> dict:
        target = self.target
        data, offset, strides = make_symbols(self.source, [r.min for r in region], [r.extent for r in region],
                                             self.mask)
        vmap: dict = {target.data: data}
        for dim, r in zip(target.shape, region[lead:]):
            if isinstance(dim, Var):
                vmap[dim] = r.extent
        for s, stride in zip(target.strides, strides[lead:]):
            if isinstance(s, Var):
                vmap[s] = stride
        if isinstance(target.elem_offset, Var):
            vmap[target.elem_offset] = offset
        return vmap

    def _indices(self, indices) -> tuple:
        moved = tuple(m + i for m, i in zip(self.mins, indices))
        return tuple(self.lead_mins) + moved

    def visit_BufferLoad(self, load: BufferLoad):
        indices = self.visit(load.indices)
        if load.buffer is self.target:
            return BufferLoad(self.source, self._indices(indices))
        return replace(load, buffer=self.visit(load.buffer), indices=indices)

    def visit_BufferStore(self, store: BufferStore):
        value, indices = self.visit(store.value), self.visit(store.indices)
        if store.buffer is self.target:
            return BufferStore(self.source, value, self._indices(indices))
        return replace(store, buffer=self.visit(store.buffer), value=value, indices=indices)

    def visit_BufferRegion(self, region: BufferRegion):
        ranges = self.visit(region.region)
        if region.buffer is not self.target:
            return replace(region, region=ranges)
        lead = tuple(Range(m, 1) for m in self.lead_mins)
        moved = tuple(Range(m + r.min, r.extent) for m, r in zip(self.mins, ranges))
        return BufferRegion(self.source, lead + moved)

    def visit_Buffer(self, buf: Buffer):
        return buf  # other buffers are untouched


def _region_mask(block: Block, source: Buffer) -> int:
    """1: the block reads ``source``, 2: writes it (3: both)."""
    reads = any(r.buffer is source for r in block.reads)
    writes = any(r.buffer is source for r in block.writes)
    return int(reads) | (2 if writes else 0)


def _inline_match_buffer(body, match: MatchBufferRegion, mask: int = 0):
    inliner = _MatchInliner(match, mask)
    return substitute(inliner.visit(body), inliner.var_map)


def _collect_dim_align(body) -> dict[int, list]:
    """data Var id → [(axis, factor, offset), …] from blocks' ``buffer_dim_align`` annotations."""
    found: dict[int, list] = {}

    def visit(node):
        if isinstance(node, Block):
            for index, axis, factor, offset in node.annotations.get(DIM_ALIGN, ()):
                buf = node.writes[int(index)].buffer
                found.setdefault(id(buf.data), []).append((int(axis), int(factor), int(offset)))

    post_order_visit(body, visit)
    return found


def _collect_carried(body) -> dict[int, list]:
    """data Var id → loops that carry values of the buffer (ConvertBlocksToOpaque's CARRIED_LOOPS)."""
    found: dict[int, list] = {}

    def visit(node):
        if isinstance(node, Block) and CARRIED_LOOPS in node.annotations:
            for region in (*node.reads, *node.writes):
                loops = found.setdefault(id(region.buffer.data), [])
                loops += [v for v in node.annotations[CARRIED_LOOPS] if not any(v is x for x in loops)]

    post_order_visit(body, visit)
    return found


def lower_opaque_block(func: PrimFunc) -> PrimFunc:
    """Remove every (opaque) block of ``func``."""
    lowerer = _Lowerer(_collect_dim_align(func.body), _collect_carried(func.body))
    return func.with_body(lowerer.visit(func.body))


def LowerOpaqueBlock() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`lower_opaque_block`."""
    return make_pass(lower_opaque_block, "tir.LowerOpaqueBlock")

"""TVM's ``get_block_access_region`` / ``get_block_read_write_region``: a block's regions
restricted to the buffers a caller knows, plus its *opaque* accesses.

``get_block_access_region(block, buffer_var_map)`` gives ``[reads, writes, opaque]``.
``buffer_var_map`` maps data Vars to the Buffers visible at the block (the caller's
allocations and match buffers); accesses of other buffers are left out. Reads and writes
are what ``block_access_regions`` infers from BufferLoad / BufferStore. An *opaque* access
is a use of a buffer's data Var outside a load or store (``T.evaluate(A.data)``, a
``call_extern`` given ``A.data``, ``A.access_ptr(...)``): it covers the whole buffer, or for
a match buffer of the block the region it matches (several such regions are united).
``get_block_read_write_region`` folds the opaque accesses into both reads and writes, except
that a ``tvm_access_ptr`` counts as a read and / or a write according to its access mask.
"""

from __future__ import annotations

from ember.ir import Call, IntImm, Range, Var, const

from ..buffer import Buffer, BufferLoad, BufferRegion
from ..functor import IRVisitor
from ..stmt import BufferStore
from .block_access import block_access_regions

__all__ = ["get_block_access_region", "get_block_read_write_region"]


def _full(buffer: Buffer) -> BufferRegion:
    return BufferRegion(buffer, tuple(Range(const(0, d.dtype), d) for d in buffer.shape))


class _OpaqueUses(IRVisitor):
    """Data Vars of known buffers used outside loads and stores, with the access kinds
    (``"r"``, ``"w"``) an access pointer states, and the regions used (the whole buffer, or
    the source region of a match buffer whose data is used)."""

    def __init__(self, by_data: dict, matched: dict):
        self.by_data = by_data
        self.matched = matched  # id(match buffer data) -> its source BufferRegion
        self.found: dict[int, tuple[Buffer, set, list]] = {}

    def note(self, var: Var, kinds: set) -> None:
        source = self.matched.get(id(var))
        buffer = source.buffer if source is not None else self.by_data.get(id(var))
        if buffer is not None and (source is None or id(buffer) in {id(b) for b in self.by_data.values()}):
            entry = self.found.setdefault(id(buffer), (buffer, set(), []))
            entry[1].update(kinds)
            entry[2].append(source.region if source is not None else None)

    def visit_Var(self, v: Var) -> None:
        self.note(v, {"r", "w"})

    def visit_Buffer(self, b: Buffer) -> None:  # a load's or store's buffer is not opaque use
        return

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        self.visit(e.indices)

    def visit_BufferStore(self, s: BufferStore) -> None:
        self.visit(s.value)
        self.visit(s.indices)

    def visit_Call(self, e: Call) -> None:
        name = getattr(e.op, "name", "")
        if name == "tir.tvm_access_ptr" and len(e.args) == 5 and isinstance(e.args[1], Var):
            mask = e.args[4].value if isinstance(e.args[4], IntImm) else 3
            kinds = ({"r"} if mask & 1 else set()) | ({"w"} if mask & 2 else set())
            self.note(e.args[1], kinds or {"r", "w"})
            self.visit(e.args[2:4])
            return
        self.visit(e.args)


def _union(buffer: Buffer, regions: list) -> BufferRegion:
    """The region covering ``regions`` (None: the whole buffer)."""
    if any(r is None for r in regions):
        return _full(buffer)
    from ember.arith import Analyzer
    from ember.ir import Max, Min

    analyzer = Analyzer()
    ranges = []
    for dim in zip(*regions):
        lo, hi = dim[0].min, dim[0].min + dim[0].extent
        for r in dim[1:]:
            lo, hi = Min(lo, r.min), Max(hi, r.min + r.extent)
        lo = analyzer.simplify(lo)
        ranges.append(Range(lo, analyzer.simplify(hi - lo)))
    return BufferRegion(buffer, tuple(ranges))


def _regions(block, buffer_var_map: dict):
    known = {id(b) for b in buffer_var_map.values()}
    reads, writes = block_access_regions(block)
    reads = [r for r in reads if id(r.buffer) in known]
    writes = [w for w in writes if id(w.buffer) in known]
    matched = {id(m.buffer.data): m.source for m in block.match_buffers}
    uses = _OpaqueUses({id(v): b for v, b in buffer_var_map.items()}, matched)
    uses.visit(block.init)
    uses.visit(block.body)
    return reads, writes, [(buf, kinds, _union(buf, regions)) for buf, kinds, regions in uses.found.values()]


def get_block_access_region(block, buffer_var_map: dict) -> list:
    """``[reads, writes, opaque]`` BufferRegions of ``block`` over the buffers in
    ``buffer_var_map`` (data Var → Buffer)."""
    reads, writes, opaque = _regions(block, buffer_var_map)
    return [reads, writes, [region for _, _, region in opaque]]


def get_block_read_write_region(block, buffer_var_map: dict) -> list:
    """``[reads, writes]`` with the opaque accesses folded in (whole buffers), an access
    pointer counting by its mask."""
    reads, writes, opaque = _regions(block, buffer_var_map)
    for buffer, kinds, region in opaque:
        for kind, table in (("r", reads), ("w", writes)):
            if kind not in kinds:
                continue
            table[:] = [r for r in table if r.buffer is not buffer]
            table.append(region)
    return [reads, writes]

"""The buffer regions a block reads and writes, inferred from its body.

``block_access_regions(block)`` walks the block's init and body.  Variables bound
*inside* the block (loops, nested blocks' iterators, lets) are relaxed over their
domains; the block's own iterators and everything bound outside stay symbolic, so
``C[vi, vj] += A[vi, vk] * B[vk, vj]`` gives ``A[vi, vk]`` and a loop ``k`` inside the
block gives ``A[vi, 0:128]``.  Per buffer and dimension the accesses are united:
identical bounds stay as they are, bounds that differ by constants give the covering
range, anything else (or an index the interval rules cannot bound) covers the whole
dimension.  Buffers allocated inside the block are left out; accesses to a match
buffer count as accesses to its source region.  The parser fills ``T.reads`` /
``T.writes`` with this; schedule primitives use it after rewriting a block.
"""

from __future__ import annotations

from ember.ir import (
    Add, FloorDiv, FloorMod, IntImm, Max, Min, Mul, PrimExpr, Range, Sub, Var, const,
    structural_equal,
)

from ..buffer import Buffer, BufferLoad, BufferRegion
from ..functor import IRVisitor, post_order_visit
from ..stmt import Block, BlockRealize, BufferStore, For, LetStmt

__all__ = ["block_access_regions", "complete_block_access"]

# an affine bound: base + offset, base None meaning 0
_Bound = tuple  # (PrimExpr | None, int)


def _split(e: PrimExpr) -> _Bound:
    if isinstance(e, IntImm) and not e.dtype.is_bool:
        return None, e.value
    if isinstance(e, Add) and isinstance(e.b, IntImm):
        base, c = _split(e.a)
        return base, c + e.b.value
    if isinstance(e, Sub) and isinstance(e.b, IntImm):
        base, c = _split(e.a)
        return base, c - e.b.value
    return e, 0


def _join(bound: _Bound, dtype) -> PrimExpr:
    base, c = bound
    if base is None:
        return const(c, dtype)
    if c == 0:
        return base
    return base + c if c > 0 else base - (-c)


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a is b or structural_equal(a, b, map_free_vars=False)


def _add(a: _Bound, b: _Bound) -> _Bound:
    if a[0] is None or b[0] is None:
        return (b[0] if a[0] is None else a[0]), a[1] + b[1]
    return a[0] + b[0], a[1] + b[1]


def _sub(a: _Bound, b: _Bound) -> _Bound:
    if b[0] is None:
        return a[0], a[1] - b[1]
    if _same(a[0], b[0]):
        return None, a[1] - b[1]
    base = (const(0, b[0].dtype) if a[0] is None else a[0]) - b[0]
    return base, a[1] - b[1]


class _Intervals:
    """Bounds ``[lo, hi]`` of index expressions given intervals of the relaxed vars."""

    def __init__(self):
        self.doms: dict[int, tuple[_Bound, _Bound]] = {}
        self.keep: list = []

    def bind(self, var: Var, lo: _Bound | None, hi: _Bound | None) -> None:
        self.doms[id(var)] = (lo, hi) if lo is not None and hi is not None else (None, None)
        self.keep.append(var)

    def depends(self, e) -> bool:
        hit = []
        post_order_visit(e, lambda n: hit.append(1) if id(n) in self.doms else None)
        return bool(hit)

    def bounds(self, e: PrimExpr):
        """(lo, hi) as affine bounds, or None when no rule applies."""
        if not self.depends(e):
            b = _split(e)
            return b, b
        if isinstance(e, Var):
            lo, hi = self.doms[id(e)]
            return None if lo is None else (lo, hi)
        rule = _RULES.get(type(e))
        return rule(self, e) if rule is not None else None

    def _add_rule(self, e):
        a, b = self.bounds(e.a), self.bounds(e.b)
        if a is None or b is None:
            return None
        return _add(a[0], b[0]), _add(a[1], b[1])

    def _sub_rule(self, e):
        a, b = self.bounds(e.a), self.bounds(e.b)
        if a is None or b is None:
            return None
        return _sub(a[0], b[1]), _sub(a[1], b[0])

    def _mul_rule(self, e):
        for x, k in ((e.a, e.b), (e.b, e.a)):
            if isinstance(k, IntImm):
                r = self.bounds(x)
                if r is None:
                    return None
                (lb, lc), (hb, hc) = r
                lo = (None if lb is None else lb * k.value, lc * k.value)
                hi = (None if hb is None else hb * k.value, hc * k.value)
                return (lo, hi) if k.value >= 0 else (hi, lo)
        return None

    def _floordiv_rule(self, e):
        if not (isinstance(e.b, IntImm) and e.b.value > 0):
            return None
        r = self.bounds(e.a)
        if r is None:
            return None
        k = e.b.value
        lo, hi = r
        if lo[0] is None and hi[0] is None:
            return (None, lo[1] // k), (None, hi[1] // k)
        return _split(_join(lo, e.dtype) // k), _split(_join(hi, e.dtype) // k)

    def _floormod_rule(self, e):
        if not (isinstance(e.b, IntImm) and e.b.value > 0):
            return None
        return (None, 0), (None, e.b.value - 1)

    def _minmax_rule(self, e):
        a, b = self.bounds(e.a), self.bounds(e.b)
        if a is None or b is None:
            return None
        pick = min if isinstance(e, Min) else max
        out = []
        for x, y in ((a[0], b[0]), (a[1], b[1])):
            if not _same(x[0], y[0]):
                return None
            out.append((x[0], pick(x[1], y[1])))
        return tuple(out)


_RULES = {
    Add: _Intervals._add_rule, Sub: _Intervals._sub_rule, Mul: _Intervals._mul_rule,
    FloorDiv: _Intervals._floordiv_rule, FloorMod: _Intervals._floormod_rule,
    Min: _Intervals._minmax_rule, Max: _Intervals._minmax_rule,
}


class _Collector(IRVisitor):
    def __init__(self, block: Block):
        self.iv = _Intervals()
        self.reads: dict[int, tuple[Buffer, list]] = {}
        self.writes: dict[int, tuple[Buffer, list]] = {}
        self.local: set[int] = {id(b) for b in block.alloc_buffers}
        self.matched: dict[int, BufferRegion] = {id(m.buffer): m.source for m in block.match_buffers}

    def record(self, table: dict, buffer: Buffer, indices) -> None:
        if id(buffer) in self.local:
            return
        source = self.matched.get(id(buffer))
        while source is not None and id(source.buffer) in self.matched:  # a match of a match buffer
            source = self.matched[id(source.buffer)]
        if source is not None:
            buffer = source.buffer
            dims = [self.iv.bounds(r.min) for r in source.region]
            dims = [None if d is None else (d[0], _add(d[1], _split(r.extent - 1)))
                    for d, r in zip(dims, source.region)]
        else:
            dims = [self.iv.bounds(i) for i in indices]
        table.setdefault(id(buffer), (buffer, []))[1].append(dims)

    def relax_range(self, var: Var, lo_expr: PrimExpr, hi_expr: PrimExpr) -> None:
        lo, hi = self.iv.bounds(lo_expr), self.iv.bounds(hi_expr)
        self.iv.bind(var, None if lo is None else lo[0], None if hi is None else hi[1])

    def visit_For(self, s: For) -> None:
        self.relax_range(s.loop_var, s.min, s.min + s.extent - 1)
        self.generic_visit(s)

    def visit_BlockRealize(self, s: BlockRealize) -> None:
        for iv, value in zip(s.block.iter_vars, s.iter_values):
            self.relax_range(iv.var, value, value)
        self.local.update(id(b) for b in s.block.alloc_buffers)
        for m in s.block.match_buffers:
            self.matched[id(m.buffer)] = m.source
        self.visit(s.block.init)
        self.visit(s.block.body)

    def visit_LetStmt(self, s: LetStmt) -> None:
        self.relax_range(s.var, s.value, s.value) if self.iv.depends(s.value) else None
        self.generic_visit(s)

    def visit_BufferStore(self, s: BufferStore) -> None:
        self.record(self.writes, s.buffer, s.indices)
        self.visit(s.value)
        self.visit(s.indices)

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        self.record(self.reads, e.buffer, e.indices)
        self.visit(e.indices)


def _symbolic_range(los: list, his: list, dim) -> Range:
    """One symbolic interval ``[lo, hi]`` (every access alike, e.g. ``0 .. n - 1`` from a
    loop of extent ``n``) as ``Range(lo, hi - lo + 1)``; otherwise the whole dimension."""
    dtype = dim.dtype
    same = all(_same(b[0], los[0][0]) and b[1] == los[0][1] for b in los) and \
        all(_same(b[0], his[0][0]) and b[1] == his[0][1] for b in his)
    if not same:
        return Range(const(0, dtype), dim)
    from ember.arith import Analyzer

    lo, hi = _join(los[0], dtype), _join(his[0], dtype)
    return Range(lo, Analyzer().simplify(hi - lo + 1))


def _unite(buffer: Buffer, accesses: list) -> BufferRegion:
    ranges = []
    for d, dim in enumerate(buffer.shape):
        column = [a[d] if d < len(a) else None for a in accesses]
        dtype = dim.dtype
        if any(c is None for c in column):
            ranges.append(Range(const(0, dtype), dim))
            continue
        los, his = [c[0] for c in column], [c[1] for c in column]
        base = los[0][0]
        if not all(_same(b[0], base) for b in los + his):
            ranges.append(_symbolic_range(los, his, dim))
            continue
        lo = (base, min(b[1] for b in los))
        hi = (base, max(b[1] for b in his))
        ranges.append(Range(_join(lo, dtype), const(hi[1] - lo[1] + 1, dtype)))
    return BufferRegion(buffer, tuple(ranges))


def block_access_regions(block: Block, exclude_written_from_reads: bool = False):
    """``(reads, writes)``: tuples of BufferRegions accessed by ``block`` (first access first).

    As in TVM, a buffer the block's ``init`` writes (a reduction's output) is left out of
    the reads; ``exclude_written_from_reads`` leaves out every buffer the block writes.
    """
    c = _Collector(block)
    c.visit(block.init)
    init_written = set(c.writes)  # a reduction's output: written by its init, not an input
    c.visit(block.body)
    writes = tuple(_unite(buf, acc) for buf, acc in c.writes.values())
    excluded = set(c.writes) if exclude_written_from_reads else init_written
    reads = tuple(_unite(buf, acc) for key, (buf, acc) in c.reads.items() if key not in excluded)
    return reads, writes


def complete_block_access(block: Block) -> Block:
    """``block`` with its reads and writes replaced by the inferred regions."""
    from ember.ir import replace

    reads, writes = block_access_regions(block)
    return replace(block, reads=reads, writes=writes)

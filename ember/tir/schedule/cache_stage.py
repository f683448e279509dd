"""cache_read and cache_write: a copy stage between a buffer and a new one in another scope.

Both work in the *scope* of the block (its nearest enclosing block), as TVM does:

1. **Where the stage goes.**  With a producer in the scope (the only block there writing
   the buffer) and consumers of it, the stage goes into the innermost loop (or the
   scope block) whose body holds both the producer and the first consumer, right
   before the consumer's statement.  A buffer nobody in the scope writes is copied in
   at the start of the scope; a cache_write with no consumer left writes back at its end.
2. **What it copies.**  The producer's written region, relaxed over the loops between it
   and the stage; for a buffer the scope does not write, the scope block's declared read
   region of it (else the whole buffer).
   Either is clipped to the buffer's extent: a declared region may reach outside the
   buffer (a padding block reads ``A[i - 1]`` under a guard), and the stage copies only
   elements that exist — a constant region is cut down, a symbolic one gets a predicate
   on the copy block.
3. **How big the copy is.**  A stage placed directly in a block gets a *compact* buffer,
   shaped like the copied region, indexed from the region's start (accesses are
   shifted); a stage inside a loop keeps the original shape, so each loop iteration
   fills its own part.
4. **Who uses the copy.**  cache_read: every block of the scope reading the buffer (or
   only ``consumer_blocks`` and their child blocks), except blocks writing it.
   cache_write: the block (and everything inside it), plus ``consumer_blocks``.
"""

from __future__ import annotations

from ember.ir import Cast, Range, Var, const, replace
from ember.tir.buffer import BufferLoad, BufferRegion, decl_buffer
from ember.tir.functor import IRMutator, substitute
from ember.tir.stmt import (
    Block, BlockRealize, BufferStore, DeclBuffer, For, ForKind, IterVar, IterVarType, SeqStmt, seq,
)

from . import _arith
from .analysis import blocks_under, child_blocks, path_to, replace_stmts, scope_of, stmt_children, unique_name
from .errors import ScheduleError

__all__ = ["cache_read", "cache_write", "cache_inplace"]


# -- where the stage goes ---------------------------------------------------------------

class _Location:
    """Finds the statement (loop or the scope block) and position the stage goes to."""

    def __init__(self, scope: Block, block: Block, related: set):
        self.scope, self.block, self.related = scope, block, related
        self.seen_block = self.seen_related = False
        self.loc, self.pos = None, -1

    def visit(self, s) -> None:
        if isinstance(s, SeqStmt):
            self._visit_seq(s)
        elif isinstance(s, BlockRealize):
            self.visit(s.block)
        elif isinstance(s, Block):
            self._visit_block(s)
        elif isinstance(s, For):
            self.visit(s.body)
            if self.seen_block and self.seen_related and self.loc is None and self.pos != -1:
                self.loc = s
        else:
            for child in stmt_children(s):
                self.visit(child)

    def _visit_seq(self, s: SeqStmt) -> None:
        before = self.seen_block
        self.seen_block = False
        for i, child in enumerate(s.seq):
            if self.pos != -1:
                break
            self.visit(child)
            if self.seen_block and self.seen_related and self.pos == -1:
                self.pos = i  # the producer came earlier in this body: go right before the consumer
                break
            if self.seen_related:
                self.seen_block = self.seen_block or before
                return
        self.seen_block = self.seen_block or before

    def _visit_block(self, b: Block) -> None:
        if b is self.scope:
            for child in stmt_children(b):
                self.visit(child)
            if self.seen_related and self.loc is None:
                self.loc = b
                if not self.seen_block and self.pos == -1:
                    self.pos = 0
        elif b is self.block:
            self.seen_block = True
        elif id(b) in self.related:
            self.seen_related = True


def _body_len(body) -> int:
    while isinstance(body, DeclBuffer):
        body = body.body
    return len(body.seq) if isinstance(body, SeqStmt) else 1


def _locate(scope: Block, block: Block | None, related: list) -> tuple:
    """(loop or block, position in its body) for the stage."""
    if block is None:  # nothing in the scope writes the buffer: copy in first
        return scope, 0
    if not related:  # nobody reads it afterwards: write back at the end of the scope
        return scope, _body_len(scope.body)
    finder = _Location(scope, block, {id(b) for b in related})
    finder.visit(scope)
    if finder.loc is None:
        return scope, 0 if not finder.seen_block else _body_len(scope.body)
    return finder.loc, finder.pos


def _insert(body, pos: int, stage):
    if isinstance(body, DeclBuffer):
        return replace(body, body=_insert(body.body, pos, stage))
    items = list(body.seq) if isinstance(body, SeqStmt) else [body]
    items.insert(pos, stage)
    return seq(*items)


# -- what it copies ---------------------------------------------------------------------

def _loop_bounds(func) -> dict:
    bounds = {}
    for s in blocks_under(func.body) + [x for x in _walk(func.body) if isinstance(x, For)]:
        pairs = ([(iv.var, iv.dom.min, iv.dom.extent) for iv in s.block.iter_vars]
                 if isinstance(s, BlockRealize) else [(s.loop_var, s.min, s.extent)])
        for var, lo_e, ext in pairs:
            lo, _ = _arith.const_bound(lo_e)
            _, hi = _arith.const_bound(lo_e + ext - 1)
            if lo is not None and hi is not None:
                bounds[var] = (lo, hi)
    return bounds


def _walk(s):
    from .analysis import walk

    return walk(s)


def _relaxed_region(realize: BlockRealize, region: BufferRegion, loc, bounds: dict) -> tuple:
    """``region`` of ``realize``'s block as (min, extent) pairs over the loops outside
    ``loc`` (the loops between ``loc`` and the block range over their whole domain)."""
    binding = {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
    path = path_to(loc, realize) or []
    relax = {lp.loop_var: (lp.min, _arith.simplify(lp.min + lp.extent - 1))
             for lp in path if isinstance(lp, For) and lp is not loc}
    # the block's iterators stay inside their domains (a predicate may cut the loops short)
    own = {iv.var: (iv.dom.min, _arith.simplify(iv.dom.min + iv.dom.extent - 1))
           for iv in realize.block.iter_vars}
    out = []
    for d, rng in enumerate(region.region):
        try:
            lo, _ = _arith.relax_bound(substitute(rng.min, binding), relax, bounds)
            _, hi = _arith.relax_bound(substitute(rng.min + rng.extent - 1, binding), relax, bounds)
        except _arith.BoundError:  # a data-dependent index: the whole dimension
            shape = region.buffer.shape[d]
            out.append((const(0, shape.dtype), shape))
            continue
        try:
            lo2, _ = _arith.relax_bound(rng.min, own, bounds)
            _, hi2 = _arith.relax_bound(rng.min + rng.extent - 1, own, bounds)
            lo = _arith.max_expr(lo, lo2, bounds) if _arith.is_const(_arith.simplify(lo - lo2, bounds)) else lo
            hi = _arith.min_expr(hi, hi2, bounds) if _arith.is_const(_arith.simplify(hi - hi2, bounds)) else hi
        except _arith.BoundError:
            pass
        out.append((_arith.simplify(lo, bounds), _arith.simplify(hi - lo + 1, bounds)))
    return tuple(out)


def _clip(region: tuple, buffer) -> tuple:
    """``region`` cut to ``buffer``'s extent where its bounds are constants (a symbolic
    region is guarded element by element instead, see ``_in_buffer``)."""
    out = []
    for (lo, ext), dim in zip(region, buffer.shape):
        lo_c, ext_c, dim_c = _arith.as_int(lo), _arith.as_int(ext), _arith.as_int(dim)
        if None not in (lo_c, ext_c, dim_c):
            start, stop = max(lo_c, 0), min(lo_c + ext_c, dim_c)
            if stop > start and (start, stop) != (lo_c, lo_c + ext_c):
                lo, ext = const(start, lo.dtype), const(stop - start, ext.dtype)
        out.append((lo, ext))
    return tuple(out)


def _domains(func) -> dict:
    """Var -> (first, last) symbolic values of every loop and block iterator of ``func``."""
    out = {}
    for s in blocks_under(func.body) + [x for x in _walk(func.body) if isinstance(x, For)]:
        pairs = ([(iv.var, iv.dom.min, iv.dom.extent) for iv in s.block.iter_vars]
                 if isinstance(s, BlockRealize) else [(s.loop_var, s.min, s.extent)])
        for var, lo, ext in pairs:
            out[var] = (lo, _arith.simplify(lo + ext - 1))
    return out


def _extreme(e, domains: dict, bounds: dict, side: int):
    """A symbolic lower (side 0) or upper (side 1) bound of ``e`` free of loop and block
    iterators (None when the analysis gives up)."""
    for _ in range(8):
        try:
            e = _arith.relax_bound(e, domains, bounds)[side]
        except _arith.BoundError:
            return None
        if not _arith._mentions(e, domains):
            return e
    return None


def _in_buffer(region: tuple, buffer, indices: list, domains: dict, bounds: dict):
    """The condition that ``indices`` (one per dimension, ranging over ``region``) lie
    inside ``buffer``; only the sides that cannot be proved are tested (None: none)."""
    from ember.arith import Analyzer

    ana = Analyzer()
    for var, (lo_v, hi_v) in bounds.items():
        ana.bind(var, Range(const(lo_v, var.dtype), const(hi_v - lo_v + 1, var.dtype)))

    def proves(cond_of, e, side):
        if ana.can_prove(cond_of(e)):
            return True
        x = _extreme(e, domains, bounds, side)
        return x is not None and ana.can_prove(cond_of(x))

    conds = []
    for (lo, ext), dim, index in zip(region, buffer.shape, indices):
        if not proves(lambda x: x >= 0, lo, 0):
            conds.append(index >= 0)
        if not proves(lambda x: x <= dim, _arith.simplify(lo + ext), 1):
            conds.append(index < dim)
    if not conds:
        return None
    out = conds[0]
    for c in conds[1:]:
        out = out & c
    return out


# -- the stage --------------------------------------------------------------------------

def _make_stage(name: str, src, dst, region: tuple, compact: bool, reading: bool, func):
    """Loops over ``region`` copying ``src`` into ``dst``.  ``reading``: the original buffer
    is ``src`` (cache_read); else it is ``dst`` (cache_write).  Elements of the region
    outside the original buffer are skipped (a predicate on the copy block)."""
    original = src if reading else dst
    loops, values, ivs, orig_idx, cache_idx = [], [], [], [], []
    for d, (lo, ext) in enumerate(region):
        loop = Var(f"ax{d}", ext.dtype)
        loops.append(loop)
        if compact:
            v = Var(f"v{d}", ext.dtype)
            ivs.append(IterVar(Range(const(0, ext.dtype), ext), v, IterVarType.DataPar))
            values.append(loop)
            orig_idx.append(_arith.simplify(lo + v))
            cache_idx.append(v)
        else:
            dim = original.shape[d]
            v = Var(f"v{d}", dim.dtype)
            ivs.append(IterVar(Range(const(0, dim.dtype), dim), v, IterVarType.DataPar))
            values.append(_arith.simplify(lo + loop))
            orig_idx.append(v)
            cache_idx.append(v)
    src_idx, dst_idx = (orig_idx, cache_idx) if reading else (cache_idx, orig_idx)
    one = lambda e: Range(e, const(1, e.dtype))  # noqa: E731
    block = Block(tuple(ivs), (BufferRegion(src, tuple(one(i) for i in src_idx)),),
                  (BufferRegion(dst, tuple(one(i) for i in dst_idx)),), name,
                  BufferStore(dst, BufferLoad(src, tuple(src_idx)), tuple(dst_idx)))
    positions = [_arith.simplify(lo + loop) for loop, (lo, _) in zip(loops, region)]
    inside = _in_buffer(region, original, positions, _domains(func), _loop_bounds(func))
    body = BlockRealize(tuple(values), const(True) if inside is None else inside, block)
    for loop, (_, ext) in reversed(list(zip(loops, region))):
        body = For(loop, const(0, ext.dtype), ext, ForKind.SERIAL, body)
    return body


def _shifted(index, lo):
    if _arith.is_const(lo, 0):
        return index
    if lo.dtype != index.dtype:
        lo = _arith.simplify(Cast(index.dtype, lo))
    return _arith.simplify(index - lo)


class _UseCache(IRMutator):
    """Points the accesses of ``old`` in the chosen blocks at ``new`` (shifted by
    ``offsets`` when ``new`` is compact).  ``targets``: blocks whose own accesses change;
    ``deep``: blocks everything inside of which changes; ``keep``: blocks left alone."""

    def __init__(self, old, new, offsets, targets: set, deep: set, keep: set):
        super().__init__()
        self.old, self.new, self.offsets = old, new, offsets
        self.targets, self.deep, self.keep = targets, deep, keep
        self.active = self.inside_deep = False

    def _shift(self, indices):
        if self.offsets is None:
            return tuple(indices)
        return tuple(_shifted(i, lo) for i, lo in zip(indices, self.offsets))

    def visit_Block(self, b):
        if id(b) in self.keep:
            return b
        saved = self.active, self.inside_deep
        self.inside_deep = self.inside_deep or id(b) in self.deep
        self.active = self.inside_deep or id(b) in self.targets
        try:
            return self.generic_visit(b)
        finally:
            self.active, self.inside_deep = saved

    def visit_Buffer(self, buf):
        return buf

    def visit_BufferRegion(self, r):
        if self.active and r.buffer is self.old:
            if self.offsets is None:
                return BufferRegion(self.new, r.region)
            return BufferRegion(self.new, tuple(Range(m, x.extent) for m, x in
                                                zip(self._shift(x.min for x in r.region), r.region)))
        return self.generic_visit(r)

    def visit_BufferLoad(self, n):
        n = self.generic_visit(n)
        if self.active and n.buffer is self.old:
            return BufferLoad(self.new, self._shift(n.indices))
        return n

    def visit_BufferStore(self, s):
        s = self.generic_visit(s)
        if self.active and s.buffer is self.old:
            return BufferStore(self.new, s.value, self._shift(s.indices))
        return s

    def visit(self, x):
        if isinstance(x, Var):  # not memoised: the same Var changes only inside chosen blocks
            return self.new.data if self.active and x is self.old.data else x
        return super().visit(x)


# -- the primitives ---------------------------------------------------------------------

def _prepare(func, realize, buffer, storage_scope: str, what: str):
    from .cache import _check_scope

    _check_scope(func, realize.block, storage_scope, what)
    scope = scope_of(func, realize)
    if scope is None:
        raise ScheduleError(f"{what}: block {realize.block.name_hint!r} is the root block", func,
                            block=realize.block)
    return scope


def _writers_in(scope: BlockRealize, buffer) -> list:
    return [r for r in child_blocks(scope.block) if any(w.buffer is buffer for w in r.block.writes)]


def _readers_in(scope: BlockRealize, buffer, writer) -> list:
    """Blocks of the scope after ``writer`` reading ``buffer`` (TVM's read-after-write deps)."""
    blocks = child_blocks(scope.block)
    after = blocks[next((k for k, r in enumerate(blocks) if r is writer), -1) + 1:]
    return [r.block for r in after if any(x.buffer is buffer for x in r.block.reads)]


def _consumer_set(consumer_blocks) -> list:
    """The given consumer blocks and their child blocks (as TVM)."""
    out = []
    for r in consumer_blocks or ():
        out.append(r.block)
        out.extend(c.block for c in child_blocks(r.block))
    return out


def _finish(func, scope: BlockRealize, loc, pos: int, stage, new, mutator: _UseCache):
    """Insert ``stage``, allocate ``new`` in the scope block, then redirect the accesses."""
    loc_new = replace(loc, body=_insert(loc.body, pos, stage))
    func = replace_stmts(func, {loc: loc_new})
    scope_block = loc_new if loc is scope.block else _find_same(func, scope)
    new_scope = replace(scope_block, alloc_buffers=scope_block.alloc_buffers + (new,))
    func = replace_stmts(func, {scope_block: new_scope})
    return replace(func, body=mutator.visit(func.body))


def _find_same(func, scope: BlockRealize) -> Block:
    """The (rebuilt) block of ``scope`` in ``func``, found by name."""
    for r in blocks_under(func.body):
        if r.block.name_hint == scope.block.name_hint:
            return r.block
    raise AssertionError("scope block vanished")


def _cache_buffer(func, buffer, storage_scope, region, compact):
    from .cache import _scope_name

    name = unique_name(func, _scope_name(buffer, storage_scope))
    shape = tuple(ext for _, ext in region) if compact else buffer.shape
    return decl_buffer(shape, buffer.dtype, name, scope=storage_scope)


def cache_read(func, realize: BlockRealize, read_buffer_index: int, storage_scope: str,
               consumer_blocks=None):
    from .cache import _pick

    block = realize.block
    buffer = _pick(func, block, block.reads, read_buffer_index, "cache_read", "read")
    if any(w.buffer is buffer for w in block.writes):
        raise ScheduleError(f"cache_read: block {block.name_hint!r} also writes {buffer.name!r} (a reduction "
                            "reading its own output); use cache_write for it", func, block=block)
    scope = _prepare(func, realize, buffer, storage_scope, "cache_read")
    writers = _writers_in(scope, buffer)
    if len(writers) > 1:  # TVM: the stage needs one producer to follow
        raise ScheduleError(f"cache_read: buffer {buffer.name!r} is written by several blocks "
                            f"({', '.join(repr(w.block.name_hint) for w in writers)}); cache_read needs a "
                            "single producer", func, block=block)
    consumers = _consumer_set(consumer_blocks)
    bounds = _loop_bounds(func)
    if writers:
        writer = writers[0]
        related = consumers or _readers_in(scope, buffer, writer)
        loc, pos = _locate(scope.block, writer.block, related)
        region_of = next(w for w in writer.block.writes if w.buffer is buffer)
        region = _clip(_relaxed_region(writer, region_of, loc, bounds), buffer)
    else:
        loc, pos = _locate(scope.block, None, [])
        declared = next((r for r in scope.block.reads if r.buffer is buffer), None)
        region = _clip(tuple((r.min, r.extent)
                             for r in (declared or BufferRegion.full_region(buffer)).region), buffer)
    compact = isinstance(loc, Block)
    new = _cache_buffer(func, buffer, storage_scope, region, compact)
    stage = _make_stage(new.name, buffer, new, region, compact, reading=True, func=func)
    if consumers:
        targets = {id(b) for b in consumers}
    else:
        targets = {id(r.block) for r in blocks_under(scope.block.body)}
    keep = {id(r.block) for r in blocks_under(scope.block.body) if any(w.buffer is buffer for w in r.block.writes)}
    keep.add(id(_stage_block(stage)))
    offsets = tuple(lo for lo, _ in region) if compact else None
    mutator = _UseCache(buffer, new, offsets, targets, set(), keep)
    return _finish(func, scope, loc, pos, stage, new, mutator), new.name


def _stage_block(stage) -> Block:
    while isinstance(stage, For):
        stage = stage.body
    return stage.block


def cache_write(func, realize: BlockRealize, write_buffer_index: int, storage_scope: str,
                consumer_blocks=None):
    from .cache import _pick

    block = realize.block
    buffer = _pick(func, block, block.writes, write_buffer_index, "cache_write", "write")
    others = [r.block.name_hint for r in blocks_under(func.body) if r is not realize
              and any(w.buffer is buffer for w in r.block.writes) and r.block.name_hint != "root"
              and path_to(r, realize) is None and path_to(realize, r) is None]
    if others:
        raise ScheduleError(f"cache_write: buffer {buffer.name!r} is also written by block(s) {others}; "
                            "cache_write needs the block to be its only writer (apply it before "
                            "decompose_reduction)", func, block=block)
    scope = _prepare(func, realize, buffer, storage_scope, "cache_write")
    consumers = _consumer_set(consumer_blocks)
    chosen = {id(b) for b in consumers}
    related = [b for b in _readers_in(scope, buffer, realize) if id(b) not in chosen]
    loc, pos = _locate(scope.block, block, related)
    region_of = next(w for w in block.writes if w.buffer is buffer)
    bounds = _loop_bounds(func)
    region = _clip(_relaxed_region(realize, region_of, loc, bounds), buffer)
    compact = isinstance(loc, Block)
    new = _cache_buffer(func, buffer, storage_scope, region, compact)
    stage = _make_stage(new.name, new, buffer, region, compact, reading=False, func=func)
    offsets = tuple(lo for lo, _ in region) if compact else None
    mutator = _UseCache(buffer, new, offsets, chosen, {id(block)}, {id(_stage_block(stage))})
    return _finish(func, scope, loc, pos, stage, new, mutator), new.name


def cache_inplace(func, realize: BlockRealize, read_buffer_index: int, storage_scope: str):
    """A block that reads and writes a buffer in place works on a cache: a stage copies the
    block's region in right before it and another copies it back right after it."""
    from .cache import _pick

    block = realize.block
    buffer = _pick(func, block, block.reads, read_buffer_index, "cache_inplace", "read")
    scope = _prepare(func, realize, buffer, storage_scope, "cache_inplace")
    declared = next((r for r in block.reads if r.buffer is buffer), None)
    region = _clip(tuple((r.min, r.extent) for r in (declared or BufferRegion.full_region(buffer)).region),
                   buffer)
    path = (path_to(scope.block, realize) or [])
    loc = next(s for s in reversed(path) if isinstance(s, For | Block))
    below = path[path.index(loc) + 1] if path.index(loc) + 1 < len(path) else realize
    body = loc.body.body if isinstance(loc.body, DeclBuffer) else loc.body
    pos = list(body.seq).index(below) if isinstance(body, SeqStmt) else 0
    compact = isinstance(loc, Block)
    new = _cache_buffer(func, buffer, storage_scope, region, compact)
    load = _make_stage(new.name, buffer, new, region, compact, reading=True, func=func)
    store_name = unique_name(func, new.name + "_1")  # block names stay unique (TVM reuses the name)
    store = _make_stage(store_name, new, buffer, region, compact, reading=False, func=func)
    offsets = tuple(lo for lo, _ in region) if compact else None
    mutator = _UseCache(buffer, new, offsets, set(), {id(block)}, {id(_stage_block(load)), id(_stage_block(store))})
    loc_new = replace(loc, body=_insert(_insert(loc.body, pos, load), pos + 2, store))
    func = replace_stmts(func, {loc: loc_new})
    scope_block = loc_new if loc is scope.block else _find_same(func, scope)
    func = replace_stmts(func, {scope_block: replace(scope_block, alloc_buffers=scope_block.alloc_buffers + (new,))})
    return replace(func, body=mutator.visit(func.body)), [new.name, store_name]

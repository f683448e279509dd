"""CompactBufferAllocation: put each temporary where it is used and shrink it to what is used.

Works on block-free TIR (after LowerOpaqueBlock), before FlattenBuffer.  For every
``Allocate`` (with its ``DeclBuffer``) whose memory is only reached through
``BufferLoad`` / ``BufferStore`` of compact buffers of the allocated shape:

1. *plan*: the allocation moves to the innermost statement holding all its accesses
   (for a sequence, around the sub-range of statements that use it).  It moves into a
   loop body only for SERIAL / PARALLEL / UNROLLED loops and the thread loops its
   scope allows ("local": any, "shared": any, "global": none; a shared buffer inside
   a threadIdx/vthread loop is one buffer for all those threads, so that loop's whole
   range is relaxed when computing its region, as TVM does), and only
   when, per iteration, the region read is covered by the region written — so no
   value is carried from one iteration to the next (a ``compute_at`` cache stage
   satisfies this).
   This is a region check, not an ordering check: like TVM, it trusts that inside
   one iteration the writes come before the reads.
2. *compact*: each dimension shrinks to the range its accesses span under the new
   allocation point (relaxing the loops inside it), and indices are shifted by the
   range's start.  A dimension whose span is not a constant (or bounded by one) keeps
   its size; an allocation of non-constant size moves into a loop only when another
   dimension shrinks there (a row of symbolic length under its row loop, which the LLVM
   code generator then puts on the stack).
   It never moves into a loop listed in the Allocate's ``CARRIED_LOOPS`` (loops an
   opaque block iterator is bound through: values carry across their iterations).
3. *align*: ``buffer_dim_align`` entries left on the Allocate by LowerOpaqueBlock
   (from ``storage_align``) give the buffer strides with ``stride[axis] % factor ==
   offset``; the Allocate then holds the strided element count.

Uses ``ember.arith`` (eval_set, simplify).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ember.ir import IntImm, Node, Var, const, fields_of, replace
from ember.transform import Pass

from ..buffer import Buffer, BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator, IRVisitor
from ..stmt import (
    Allocate, AttrStmt, BufferStore, DeclBuffer, For, ForKind, IfThenElse, LetStmt, SeqStmt,
    Stmt, seq,
)
from ._common import logger, make_pass
from .convert_blocks_to_opaque import CARRIED_LOOPS
from .lower_opaque_block import DIM_ALIGN
from .region_markers import marked_accesses, marker_kind
from .simplify import make_analyzer

__all__ = ["compact_buffer_allocation", "CompactBufferAllocation", "PlaceAndCompactAllocations"]

_DESCEND_KINDS = (ForKind.SERIAL, ForKind.PARALLEL, ForKind.UNROLLED)


@dataclass
class _Alloc:
    alloc: Allocate
    buffer: Buffer | None
    key: int = 0
    ok: bool = True
    buffers: list = field(default_factory=list)
    # thread loops around the allocation whose threads share it (threadIdx for shared
    # memory): their whole range is relaxed when computing its region
    relaxed: dict = field(default_factory=dict)

    @property
    def data(self) -> Var:
        return self.alloc.buffer_var


# -- 1. find movable allocations ------------------------------------------------------

class _Finder(IRVisitor):
    def __init__(self):
        self.allocs: dict[int, _Alloc] = {}
        self.escaped: set[int] = set()

    def visit_Allocate(self, alloc: Allocate):
        body = alloc.body
        buf = body.buffer if isinstance(body, DeclBuffer) and body.buffer.data is alloc.buffer_var else None
        cond_true = isinstance(alloc.condition, IntImm) and alloc.condition.value
        self.allocs[id(alloc.buffer_var)] = _Alloc(alloc, buf, id(alloc.buffer_var), bool(cond_true))
        self.visit(alloc.extents)
        self.visit(body.body if buf is not None else body)

    def visit_DeclBuffer(self, decl: DeclBuffer):
        self.visit(decl.body)

    def _access(self, buf: Buffer, indices):
        info = self.allocs.get(id(buf.data))
        if info is not None:
            same_shape = len(buf.shape) == len(info.alloc.extents) and all(
                a is b or (isinstance(a, IntImm) and isinstance(b, IntImm) and a.value == b.value)
                for a, b in zip(buf.shape, info.alloc.extents)
            )
            offset = buf.elem_offset
            if buf.strides or not same_shape or not (offset is None or (isinstance(offset, IntImm) and offset.value == 0)):
                info.ok = False
            elif buf not in info.buffers:
                info.buffers.append(buf)
        self.visit(indices)

    def visit_BufferLoad(self, load: BufferLoad):
        self._access(load.buffer, load.indices)

    def visit_BufferStore(self, store: BufferStore):
        self._access(store.buffer, store.indices)
        self.visit(store.value)

    def visit_Var(self, var: Var):
        self.escaped.add(id(var))

    def visit_Buffer(self, buf: Buffer):
        self.escaped.add(id(buf.data))


class _Stripper(IRMutator):
    def __init__(self, keys: set[int]):
        super().__init__()
        self.keys = keys

    def visit_Allocate(self, alloc: Allocate):
        if id(alloc.buffer_var) in self.keys:
            body = alloc.body
            if isinstance(body, DeclBuffer) and body.buffer.data is alloc.buffer_var:
                body = body.body
            return self.visit(body)
        return self.generic_visit(alloc)


# -- 2. where each allocation is used ---------------------------------------------------

def _child_slots(stmt) -> list[tuple[str, Stmt]]:
    if isinstance(stmt, SeqStmt):
        return [(str(i), s) for i, s in enumerate(stmt.seq)]
    if isinstance(stmt, IfThenElse):
        slots = [("then_case", stmt.then_case)]
        return slots + ([("else_case", stmt.else_case)] if stmt.else_case is not None else [])
    body = getattr(stmt, "body", None)
    return [("body", body)] if isinstance(body, Stmt) else []


class _Uses:
    """Which allocations (by key) each statement touches, memoised by node id."""

    def __init__(self, keys: set[int]):
        self.keys = keys
        self.memo: dict[int, frozenset] = {}
        self.keep: list = []

    def of(self, node) -> frozenset:
        hit = self.memo.get(id(node))
        if hit is not None:
            return hit
        found: set[int] = set()

        def visit(x):
            if isinstance(x, BufferLoad | BufferStore) and id(x.buffer.data) in self.keys:
                found.add(id(x.buffer.data))

        from ..functor import post_order_visit

        post_order_visit(node, visit)
        out = frozenset(found)
        self.memo[id(node)] = out
        self.keep.append(node)
        return out


# -- 3. regions ----------------------------------------------------------------------------

def _accesses(stmt, key: int):
    """(is_write, indices, relaxed loops, let vars) of every access to allocation ``key``."""
    out = []

    class V(IRVisitor):
        def __init__(self):
            self.loops: list[For] = []
            self.lets: list[Var] = []

        def visit_For(self, loop):
            self.visit(loop.min)
            self.visit(loop.extent)
            self.loops.append(loop)
            self.visit(loop.body)
            self.loops.pop()

        def visit_LetStmt(self, let):
            self.visit(let.value)
            self.lets.append(let.var)
            self.visit(let.body)
            self.lets.pop()

        def visit_BufferLoad(self, load):
            if id(load.buffer.data) == key:
                out.append((False, load.indices, list(self.loops), list(self.lets)))
            self.visit(load.indices)

        def visit_BufferStore(self, store):
            if id(store.buffer.data) == key:
                out.append((True, store.indices, list(self.loops), list(self.lets)))
            self.visit(store.indices)
            self.visit(store.value)

        def visit_Call(self, call):
            if marker_kind(call) is None:
                return self.generic_visit(call)
            for is_write, load in marked_accesses(call):  # a tensor intrinsic's region (region_markers)
                if id(load.buffer.data) == key:
                    out.append((is_write, load.indices, list(self.loops), list(self.lets)))
                self.visit(load.indices)

    V().visit(stmt)
    return out


def _regions(stmt, key: int, ndim: int, analyzer, relaxed=None):
    """Per-dimension (write set, read set) over ``stmt``'s own loops (and the ``relaxed``
    loops around it, Var -> Range), or None if unknown."""
    from ember.arith.int_set import IntSet, eval_set, union
    from ember.ir import Range

    from ..functor import collect

    writes, reads = [[] for _ in range(ndim)], [[] for _ in range(ndim)]
    for is_write, indices, loops, lets in _accesses(stmt, key):
        if lets and collect(indices, lambda n, lets=lets: any(n is v for v in lets)):
            return None
        dom = {**(relaxed or {}), **{lp.loop_var: Range(lp.min, lp.extent) for lp in loops}}
        for d, index in enumerate(indices):
            if index.dtype.lanes != 1:
                return None
            s = eval_set(index, dom, analyzer)
            if not (s.has_lower_bound() and s.has_upper_bound()):
                return None
            (writes if is_write else reads)[d].append(s)
    empty = IntSet.nothing()
    return (
        [union(w, analyzer) if w else empty for w in writes],
        [union(r, analyzer) if r else empty for r in reads],
    )


def _reads_covered(stmt, info: _Alloc, analyzer) -> bool:
    regions = _regions(stmt, info.key, len(info.alloc.extents), analyzer, info.relaxed)
    if regions is None:
        return False
    for w, r in zip(*regions):
        if r.is_nothing():
            continue
        if w.is_nothing():
            return False
        if not (analyzer.can_prove(w.min_value <= r.min_value) and analyzer.can_prove(r.max_value <= w.max_value)):
            return False
    return True


# -- 4. placement and compaction ---------------------------------------------------------

def _may_enter_thread_loop(loop: For, info: _Alloc) -> bool:
    """Local memory may live per thread, shared memory per block, global memory not in a kernel."""
    ann = info.data.type_annotation
    scope = ann.storage_scope if ann is not None else "global"
    tag = loop.thread_binding.thread_tag if loop.thread_binding is not None else ""
    if scope.startswith(("local", "wmma.")) or scope == "warp":  # wmma fragments: per warp (per thread)
        return True
    if scope.startswith("shared"):
        return tag.startswith(("blockIdx", "threadIdx", "vthread"))
    return False


def _shared_by_threads(loop: For, info: _Alloc) -> bool:
    """Whether all the threads of ``loop`` share the allocation (shared memory inside a
    threadIdx loop): then it is one buffer for the block and the loop is relaxed."""
    ann = info.data.type_annotation
    scope = ann.storage_scope if ann is not None else "global"
    tag = loop.thread_binding.thread_tag if loop.thread_binding is not None else ""
    return scope.startswith("shared") and tag.startswith(("threadIdx", "vthread"))


class _Placer:
    def __init__(self, uses: _Uses, analyzer):
        self.uses = uses
        self.analyzer = analyzer

    def place(self, stmt, pending: list[_Alloc]):
        if not pending:
            return stmt
        slots = _child_slots(stmt)
        here: list[_Alloc] = []
        down: dict[str, list[_Alloc]] = {}
        ranged: list[tuple[int, int, _Alloc]] = []
        for info in pending:
            holders = [i for i, (_, child) in enumerate(slots) if info.key in self.uses.of(child)]
            at_node = self._used_at_node(stmt, slots, info)
            if len(holders) == 1 and not at_node and self._can_descend(stmt, slots[holders[0]][1], info):
                down.setdefault(slots[holders[0]][0], []).append(info)
            elif isinstance(stmt, SeqStmt) and len(holders) > 1:
                ranged.append((holders[0], holders[-1], info))
            else:
                here.append(info)
        new_children = {name: self.place(child, down.get(name, [])) for name, child in slots}
        stmt = self._rebuild(stmt, new_children)
        if ranged:
            stmt, rest = self._wrap_ranges(stmt, ranged)
            here += rest
        for info in here:
            stmt = self._allocate(info, stmt)
        return stmt

    def _used_at_node(self, stmt, slots, info) -> bool:
        for name in fields_of(type(stmt)):
            value = getattr(stmt, name)
            if any(value is child for _, child in slots) or name == "seq":
                continue
            if isinstance(value, Node | tuple) and info.key in self.uses.of(value):
                return True
        return isinstance(stmt, BufferStore) and id(stmt.buffer.data) == info.key

    def _can_descend(self, stmt, child, info) -> bool:
        if isinstance(stmt, For) and stmt.kind == ForKind.THREAD_BINDING and _shared_by_threads(stmt, info):
            from ember.ir import Range

            saved = info.relaxed
            info.relaxed = {**saved, stmt.loop_var: Range(stmt.min, stmt.extent)}
            ok = self._can_descend_checked(stmt, child, info)
            if not ok:
                info.relaxed = saved
            return ok
        return self._can_descend_checked(stmt, child, info)

    def _can_descend_checked(self, stmt, child, info) -> bool:
        if isinstance(stmt, For) and any(v is stmt.loop_var for v in info.alloc.annotations.get(CARRIED_LOOPS, ())):
            logger.debug("CompactBufferAllocation: %s stays outside loop %s (an opaque block iterator carries "
                         "its values across iterations)", info.data.name, stmt.loop_var.name)
            return False
        if isinstance(stmt, For):
            if stmt.kind == ForKind.THREAD_BINDING:
                if not _may_enter_thread_loop(stmt, info):
                    return False
            elif stmt.kind not in _DESCEND_KINDS:
                return False
            if not _reads_covered(child, info, self.analyzer):
                logger.debug("CompactBufferAllocation: %s stays outside loop %s (reads not covered by "
                             "writes per iteration)", info.data.name, stmt.loop_var.name)
                return False
            extents, offsets = self._compact_shape(info, child)
            # a symbolic size moves in only when it shrinks there (a softmax row of symbolic
            # length under its row loop): the code generator puts such a buffer on the stack
            if offsets is None and not all(isinstance(e, IntImm) for e in extents) \
                    and not self._constant_deeper(child, info):
                logger.debug("CompactBufferAllocation: %s stays outside loop %s (its size inside would "
                             "not be constant)", info.data.name, stmt.loop_var.name)
                return False
            return True
        return isinstance(stmt, IfThenElse | LetStmt | SeqStmt | Allocate) or (
            isinstance(stmt, AttrStmt) and stmt.attr_key.startswith("pragma")
        )

    def _constant_deeper(self, stmt, info, depth: int = 0) -> bool:
        """Whether the allocation, moved into ``stmt``, can go on down to a loop under which
        its size is constant (a symbolic level on the way, e.g. a symbolic row loop around
        a register tile, is then only passed through)."""
        if depth > 16:
            return False
        slots = _child_slots(stmt)
        holders = [child for _, child in slots if info.key in self.uses.of(child)]
        if len(holders) != 1 or self._used_at_node(stmt, slots, info):
            return False
        child = holders[0]
        if isinstance(child, For):
            return self._can_descend(child, child.body, info)
        if isinstance(child, IfThenElse | LetStmt | SeqStmt | Allocate):
            return self._constant_deeper(child, info, depth + 1)
        return False

    @staticmethod
    def _rebuild(stmt, children: dict):
        if isinstance(stmt, SeqStmt):
            items = tuple(children[str(i)] for i in range(len(stmt.seq)))
            return replace(stmt, seq=items)
        return replace(stmt, **children) if children else stmt

    def _wrap_ranges(self, stmt: SeqStmt, ranged):
        items = [(i, i, s) for i, s in enumerate(stmt.seq)]
        rest = []
        for lo, hi, info in sorted(ranged, key=lambda r: r[1] - r[0]):
            starts = [k for k, it in enumerate(items) if it[0] == lo]
            ends = [k for k, it in enumerate(items) if it[1] == hi]
            if not starts or not ends or len(items) == 1:
                rest.append(info)
                continue
            a, b = starts[0], ends[0]
            group = seq(*[it[2] for it in items[a:b + 1]])
            items[a:b + 1] = [(lo, hi, self._allocate(info, group))]
        return seq(*[it[2] for it in items]), rest

    def _allocate(self, info: _Alloc, body):
        extents, offsets = self._compact_shape(info, body)
        buf = info.buffer or (info.buffers[0] if info.buffers else None)
        annotations = {k: v for k, v in info.alloc.annotations.items() if k not in (DIM_ALIGN, CARRIED_LOOPS)}
        align = info.alloc.annotations.get(DIM_ALIGN)
        strides = _aligned_strides(extents, align) if align and buf is not None else None
        if buf is None or (offsets is None and strides is None):
            kept = {k: v for k, v in info.alloc.annotations.items() if k != CARRIED_LOOPS}
            return Allocate(info.data, info.alloc.dtype, info.alloc.extents, info.alloc.condition,
                            body if buf is None else DeclBuffer(buf, body), kept)
        if offsets is None:
            offsets = [const(0, e.dtype) for e in extents]
        new_buf = replace(buf, shape=tuple(extents), strides=strides[0] if strides else ())
        body = _Shifter(info.key, new_buf, offsets, self.analyzer).visit(body)
        alloc_extents = (strides[1],) if strides else tuple(extents)
        return Allocate(info.data, info.alloc.dtype, alloc_extents, info.alloc.condition,
                        DeclBuffer(new_buf, body), annotations)

    def _compact_shape(self, info: _Alloc, body):
        old = info.alloc.extents
        regions = _regions(body, info.key, len(old), self.analyzer, info.relaxed)
        if regions is None:
            return list(old), None
        extents, offsets, changed = [], [], False
        for dim, w, r in zip(old, *regions):
            s = w.union(r, self.analyzer) if not w.is_nothing() else r
            size = None if s.is_nothing() else self.analyzer.simplify(s.max_value - s.min_value + 1)
            if size is not None and not isinstance(size, IntImm):
                # a symbolic span bounded by a constant: only useful below a constant size
                bound = self.analyzer.const_int_bound(size).max_value
                size = const(bound, size.dtype) if isinstance(dim, IntImm) and bound < dim.value else None
            smaller = not isinstance(dim, IntImm) or size is None or size.value < dim.value
            if size is None or not smaller or size.value <= 0:
                extents.append(dim)
                offsets.append(const(0, dim.dtype))
                continue
            extents.append(const(size.value, dim.dtype))
            offsets.append(s.min_value)
            changed = True
        if not changed:
            return list(old), None
        logger.debug("CompactBufferAllocation: %s shrunk from %s to %s", info.data.name,
                     [getattr(e, "value", e) for e in old], [getattr(e, "value", e) for e in extents])
        return extents, offsets


def _aligned_strides(shape, align):
    """(strides, element count) with ``stride[axis] % factor == offset`` for each entry, or None."""
    if not all(isinstance(d, IntImm) for d in shape):
        return None
    strides, acc = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        for axis, factor, offset in align:
            if axis == d and factor > 0:
                acc += (offset - acc) % factor
        strides[d] = acc
        acc *= shape[d].value
    dtype = shape[0].dtype
    return tuple(const(s, dtype) for s in strides), const(acc, dtype)


class _Shifter(IRMutator):
    def __init__(self, key, new_buf, offsets, analyzer):
        super().__init__()
        self.key, self.new_buf, self.offsets, self.analyzer = key, new_buf, offsets, analyzer

    def _shift(self, indices):
        return tuple(
            i if isinstance(o, IntImm) and o.value == 0 else self.analyzer.simplify(i - o)
            for i, o in zip(indices, self.offsets)
        )

    def visit_BufferLoad(self, load):
        indices = self.visit(load.indices)
        if id(load.buffer.data) == self.key:
            return BufferLoad(self.new_buf, self._shift(indices))
        return replace(load, indices=indices)

    def visit_BufferStore(self, store):
        value, indices = self.visit(store.value), self.visit(store.indices)
        if id(store.buffer.data) == self.key:
            return BufferStore(self.new_buf, value, self._shift(indices))
        return replace(store, value=value, indices=indices)


def _bind_loops(body, analyzer) -> None:
    from ember.ir import Range

    from ..functor import post_order_visit

    def visit(x):
        if isinstance(x, For):
            try:
                analyzer.bind(x.loop_var, Range(x.min, x.extent))
            except ValueError:
                pass

    post_order_visit(body, visit)


def compact_buffer_allocation(func: PrimFunc) -> PrimFunc:
    """Move ``func``'s temporaries to where they are used and shrink them."""
    analyzer = make_analyzer()
    finder = _Finder()
    finder.visit(func.body)
    movable = [
        info for info in finder.allocs.values()
        if info.ok and info.buffers and info.key not in finder.escaped
    ]
    if not movable:
        return func
    keys = {info.key for info in movable}
    body = _Stripper(keys).visit(func.body)
    _bind_loops(body, analyzer)
    placed = _Placer(_Uses(keys), analyzer).place(body, movable)
    return func.with_body(placed)


def PlaceAndCompactAllocations() -> Pass:  # noqa: N802 - the lowering pipeline's step
    """The pass form of :func:`compact_buffer_allocation` (moves, then shrinks)."""
    return make_pass(compact_buffer_allocation, "tir.PlaceAndCompactAllocations")


def CompactBufferAllocation(is_strict: bool = True) -> Pass:  # noqa: N802 - TVM's name
    """TVM's pass: shrink allocated buffers where they are (block ``alloc_buffers`` or
    ``Allocate``), see :mod:`.compact_buffer_region`; ``is_strict`` never lets a buffer grow."""
    from .compact_buffer_region import compact_buffer_regions

    return make_pass(lambda func: compact_buffer_regions(func, is_strict), "tir.CompactBufferAllocation")

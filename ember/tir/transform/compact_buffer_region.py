"""CompactBufferAllocation as TVM defines it: shrink each buffer, where it is allocated, to
the region its accesses span.

A buffer is allocated by a block (``alloc_buffers``) or by an ``Allocate`` whose memory
only one buffer of the allocated dtype reaches.  Its accesses — loads, stores, the
sources of ``match_buffers``, and opaque uses of its data pointer (which count as the
regions the enclosing block declares in ``T.reads``/``T.writes``, or the whole buffer) —
are relaxed over every loop *inside* the allocation; loops outside stay symbolic, except
thread loops whose threads share the memory (``shared`` memory: threadIdx and vthread;
``global``: blockIdx too; ``warp``: threadIdx.x).  Branch conditions and block predicates
narrow the loops they bound (``if i < 112``), and the rest of them limit affine indices
(``arith.estimate_region_upper_bound``).

Each dimension then becomes ``[min, min + extent)`` of that span: with ``is_strict`` the
start is clamped at 0 and the extent at the old one; an extent that depends on a loop or
on memory keeps the dimension as it was.  Indices, block regions and match-buffer sources
are shifted by the start; a block's ``buffer_dim_align`` annotation gives the new buffer
aligned strides.  Nothing moves: where the allocation sits is an earlier decision
(``compact_buffer_allocation`` is ember's pass that also moves allocations, used by the
lowering pipeline).
"""

from __future__ import annotations

from contextlib import contextmanager

from ember.arith import Analyzer
from ember.arith.deduce_bound import deduce_bound
from ember.arith.int_set import IntSet, eval_set, union
from ember.arith.region_bound import estimate_region_upper_bound
from ember.ir import (
    EQ, GE, GT, LE, LT, NE, And, Call, IntImm, Not, Or, Range, Var, const, replace,
)

from ..buffer import Buffer, BufferLoad, BufferRegion, MatchBufferRegion
from ..function import PrimFunc
from ..functor import IRMutator, IRVisitor, collect, post_order_visit, substitute
from ..stmt import Allocate, AttrStmt, Block, BlockRealize, BufferStore, DeclBuffer, For, ForKind
from ._common import call_op_name, logger
from .lower_opaque_block import DIM_ALIGN

__all__ = ["compact_buffer_regions"]

_COMPARISONS = (LT, LE, GT, GE, EQ, NE)
_STORAGE_RANK = {"global": 0, "shared": 1, "warp": 2, "local": 3}


def _storage_rank(scope: str) -> int:
    return _STORAGE_RANK.get(scope.split(".")[0], 3)


def _relaxed_by_thread(tag: str | None, scope: str) -> bool:
    """Whether all the threads of a ``tag`` loop share memory of ``scope`` (TVM's rule)."""
    if not tag:
        return False
    if tag.startswith("blockIdx."):
        rank, dim = 0, tag[-1]
    elif tag.startswith("threadIdx."):
        rank, dim = 1, tag[-1]
    elif tag.startswith("vthread") or tag == "cthread":
        rank, dim = 1, None
    else:
        return False
    storage = _storage_rank(scope)
    if storage == 2:  # warp memory: only threadIdx.x lanes share it
        return rank == 1 and dim == "x"
    return storage <= rank


def _negate(cond):
    """``not cond`` with the negation pushed into ``&&`` / ``||`` / comparisons."""
    flip = {LT: GE, LE: GT, GT: LE, GE: LT, EQ: NE, NE: EQ}
    if isinstance(cond, And):
        return Or(_negate(cond.a), _negate(cond.b))
    if isinstance(cond, Or):
        return And(_negate(cond.a), _negate(cond.b))
    if isinstance(cond, Not):
        return cond.a
    if type(cond) in flip:
        return flip[type(cond)](cond.a, cond.b)
    return Not(cond)


def _as_bool(cond):
    return cond if cond.dtype.is_bool else NE(cond, const(0, cond.dtype))


def _atoms(cond) -> list:
    """The integer comparisons ``cond`` is a conjunction of (``likely`` unwrapped)."""
    if isinstance(cond, And):
        return _atoms(cond.a) + _atoms(cond.b)
    if call_op_name(cond) == "tir.likely":
        return _atoms(cond.args[0])
    return [cond] if isinstance(cond, _COMPARISONS) else []


class _Collector(IRVisitor):
    """Each allocated buffer's accessed region (see the module docstring)."""

    def __init__(self, candidates: dict, is_strict: bool, loop_vars: set):
        self.candidates = candidates  # id(data) -> the one Buffer reaching that memory
        self.is_strict = is_strict
        self.loop_vars = loop_vars
        self.analyzer = Analyzer()
        self.dom: dict = {}  # loop / thread Var -> IntSet
        self.ancestors: list = []  # (Var, thread tag or None), outermost first
        self.depth: dict = {}  # id(data) -> len(ancestors) where the buffer is allocated
        self.lets: dict = {}  # index-typed let / block iterator Var -> its value
        self.pending: list = []  # conditions in force at this point
        self.annotations: dict = {}  # id(data) -> regions the current block declares
        self.explicit: dict = {}  # id(data) -> a region declared to replace the accesses
        self.accessed: dict = {}  # id(data) -> [IntSet per dimension]
        self.regions: dict = {}  # id(data) -> [Range per dimension]

    # -- scopes -------------------------------------------------------------------------

    @contextmanager
    def _loop(self, var, lo, extent, tag):
        self.ancestors.append((var, tag))
        self.dom[var] = IntSet.interval(lo, self.analyzer.simplify(lo + extent - 1))
        try:
            self.analyzer.bind(var, Range(lo, extent), allow_override=True)
        except (ValueError, TypeError):
            pass
        try:
            yield
        finally:
            self.ancestors.pop()
            self.dom.pop(var, None)

    @contextmanager
    def _condition(self, cond):
        cond = _as_bool(cond)
        saved = {}
        for atom in _atoms(substitute(cond, self.lets) if self.lets else cond):
            for var in {id(v): v for v in collect(atom, lambda x: isinstance(x, Var))}.values():
                if var not in self.dom:
                    continue
                narrowed = self._narrow(var, atom)
                if narrowed is not None:
                    saved.setdefault(var, self.dom[var])
                    self.dom[var] = narrowed
        self.pending.append(cond)
        try:
            yield
        finally:
            self.pending.pop()
            self.dom.update(saved)

    def _narrow(self, var, atom):
        current = self.dom[var]
        others = {v: s for v, s in self.dom.items() if v is not var}
        if isinstance(atom, NE):  # i != c only trims an end of i's range
            for a, b in ((atom.a, atom.b), (atom.b, atom.a)):
                if a is var and isinstance(b, IntImm):
                    if self.analyzer.can_prove_equal(current.min_value, b):
                        return IntSet.interval(self.analyzer.simplify(current.min_value + 1), current.max_value)
                    if self.analyzer.can_prove_equal(current.max_value, b):
                        return IntSet.interval(current.min_value, self.analyzer.simplify(current.max_value - 1))
            return None
        bound = deduce_bound(var, atom, others)
        if bound.is_nothing():
            return None
        # ends that depend on other loops take their widest value: the narrowed range must
        # still hold every value ``var`` takes for some value of those loops
        lo, hi = bound.min_value, bound.max_value
        if bound.has_lower_bound():
            lo = eval_set(lo, others, self.analyzer).min_value
        if bound.has_upper_bound():
            hi = eval_set(hi, others, self.analyzer).max_value
        return current.intersect(IntSet.interval(lo, hi), self.analyzer)

    # -- statements ----------------------------------------------------------------------

    def visit_For(self, loop: For):
        self.visit(loop.min)
        self.visit(loop.extent)
        tag = loop.thread_binding.thread_tag if loop.kind == ForKind.THREAD_BINDING and \
            loop.thread_binding is not None else None
        with self._loop(loop.loop_var, loop.min, loop.extent, tag):
            self.visit(loop.body)

    def visit_AttrStmt(self, stmt: AttrStmt):
        self.visit(stmt.value)
        node = stmt.node
        if stmt.attr_key in ("thread_extent", "virtual_thread") and hasattr(node, "var"):
            with self._loop(node.var, const(0, stmt.value.dtype), stmt.value, node.thread_tag):
                self.visit(stmt.body)
            return
        self.visit(stmt.body)

    def visit_LetStmt(self, let):
        self.visit(let.value)
        if let.value.dtype.is_int or let.value.dtype.is_uint:
            self.lets[let.var] = substitute(let.value, self.lets) if self.lets else let.value
        self.visit(let.body)

    def visit_IfThenElse(self, stmt):
        self.visit(stmt.condition)
        with self._condition(stmt.condition):
            self.visit(stmt.then_case)
        if stmt.else_case is not None:
            with self._condition(_negate(_as_bool(stmt.condition))):
                self.visit(stmt.else_case)

    def visit_Call(self, call: Call):
        if call_op_name(call) == "tir.if_then_else" and len(call.args) == 3:
            cond, then_value, else_value = call.args
            self.visit(cond)
            with self._condition(cond):
                self.visit(then_value)
            with self._condition(_negate(_as_bool(cond))):
                self.visit(else_value)
            return
        self.generic_visit(call)

    def visit_DeclBuffer(self, decl: DeclBuffer):
        self.visit(decl.body)

    def visit_Allocate(self, alloc: Allocate):
        self.visit(alloc.extents)
        key = id(alloc.buffer_var)
        buf = self.candidates.get(key)
        if buf is None or buf.dtype != alloc.dtype:
            self.visit(alloc.body)
            return
        self.depth[key] = len(self.ancestors)
        self.visit(alloc.body)
        self._finish(buf)

    def visit_BlockRealize(self, realize: BlockRealize):
        self.visit(realize.iter_values)
        self.visit(realize.predicate)
        saved = dict(self.lets)
        for iv, value in zip(realize.block.iter_vars, realize.iter_values):
            self.lets[iv.var] = substitute(value, saved) if saved else value
        with self._condition(realize.predicate):
            self.visit(realize.block)
        self.lets = saved

    def visit_Block(self, block: Block):
        saved_ann, saved_explicit = self.annotations, dict(self.explicit)
        declared: dict = {}
        for region in (*block.reads, *block.writes):
            declared.setdefault(id(region.buffer.data), []).append(region)
        self.annotations = {**saved_ann, **declared}
        ann = block.annotations or {}
        for attr, regions in (("explicit_read_region", block.reads), ("explicit_write_region", block.writes)):
            for index in ann.get(attr, ()):
                index = int(index)
                if 0 <= index < len(regions):
                    self.explicit[id(regions[index].buffer.data)] = regions[index]
        for buf in block.alloc_buffers:
            self.depth[id(buf.data)] = len(self.ancestors)
        for match in block.match_buffers:
            self._access(match.source.buffer, list(match.source.region))
        if block.init is not None:
            self.visit(block.init)
        self.visit(block.body)
        self.annotations, self.explicit = saved_ann, saved_explicit
        for buf in block.alloc_buffers:
            if self.candidates.get(id(buf.data)) is buf:
                self._finish(buf)

    # -- accesses ------------------------------------------------------------------------

    def visit_Buffer(self, buf):
        pass  # a buffer named by a load, store or region is not an opaque use of its data

    def visit_BufferLoad(self, load: BufferLoad):
        explicit = self.explicit.get(id(load.buffer.data))
        if explicit is not None:
            self._access(load.buffer, list(explicit.region))
        else:
            self._access(load.buffer, [Range(i, 1) for i in load.indices])
        self.visit(load.indices)

    def visit_BufferStore(self, store: BufferStore):
        self._access(store.buffer, [Range(i, 1) for i in store.indices])
        self.visit(store.indices)
        self.visit(store.value)

    def visit_Var(self, var: Var):
        buf = self.candidates.get(id(var))
        if buf is None or id(var) not in self.depth:
            return
        declared = self.annotations.get(id(var))
        if declared:
            for region in declared:
                self._access(buf, list(region.region))
        else:
            self._access(buf, [Range(0, s) for s in buf.shape])

    def _access(self, buf: Buffer, region: list):
        key = id(buf.data)
        depth = self.depth.get(key)
        if depth is None or self.candidates.get(key) is None:
            return
        if any(r.min.dtype.lanes != 1 for r in region):
            region = [Range(0, s) for s in buf.shape]  # vector indices: the whole dimension
        if self.lets:
            region = [Range(substitute(r.min, self.lets), substitute(r.extent, self.lets)) for r in region]
        scope = buf.scope()
        fixed = {id(v) for v, tag in self.ancestors[:depth] if not _relaxed_by_thread(tag, scope)}
        var_dom = {}
        for v, s in self.dom.items():
            if id(v) in fixed or not (s.has_lower_bound() and s.has_upper_bound()):
                continue
            var_dom[v] = Range(s.min_value, self.analyzer.simplify(s.max_value - s.min_value + 1))
        predicate = None
        if self.pending:
            conds = [substitute(c, self.lets) if self.lets else c for c in self.pending]
            predicate = conds[0]
            for c in conds[1:]:
                predicate = And(predicate, c)
            predicate = self.analyzer.simplify(predicate)
            if isinstance(predicate, IntImm) and predicate.value:
                predicate = None
        try:
            sets = estimate_region_upper_bound(region, var_dom, predicate)
            if predicate is not None:  # a predicate bound by outer loops gives a size that
                plain = estimate_region_upper_bound(region, var_dom)  # varies: take the plain one
                sets = [p if self._loop_dependent_width(s) and not self._loop_dependent_width(p) else s
                        for s, p in zip(sets, plain)]
        except Exception as err:  # noqa: BLE001 - an index the bound estimate cannot read
            logger.debug("CompactBufferAllocation: %s keeps its shape (%s)", buf.name, err)
            sets = [IntSet.everything() for _ in region]
        seen = self.accessed.get(key)
        self.accessed[key] = sets if seen is None else [
            union([a, b], self.analyzer) for a, b in zip(seen, sets)
        ]

    def _loop_dependent_width(self, s: IntSet) -> bool:
        if not (s.has_lower_bound() and s.has_upper_bound()):
            return False
        return self._depends_on_loop_or_memory(self.analyzer.simplify(s.max_value - s.min_value))

    # -- the new region ------------------------------------------------------------------

    def _finish(self, buf: Buffer):
        key = id(buf.data)
        sets = self.accessed.get(key)
        if sets is None or len(sets) != len(buf.shape):
            return
        out, changed = [], False
        for dim, s in zip(buf.shape, sets):
            zero = const(0, dim.dtype)
            if s.is_nothing():
                out.append(Range(zero, dim))
                continue
            rng = s.cover_range(Range(zero, dim), self.analyzer)
            lo, extent = rng.min, rng.extent
            if self.is_strict:
                lo = self.analyzer.simplify(_max(zero, lo))
                if not self.analyzer.can_prove(extent <= dim):
                    extent = _min(dim, extent)
                extent = self.analyzer.simplify(extent)
            if self._depends_on_loop_or_memory(extent):
                out.append(Range(zero, dim))
                continue
            lo, extent = _cast(lo, dim.dtype), _cast(extent, dim.dtype)
            if not (self.analyzer.can_prove_equal(lo, 0) and self.analyzer.can_prove_equal(extent, dim)):
                changed = True
            out.append(Range(lo, extent))
        if changed:
            self.regions[key] = out

    def _depends_on_loop_or_memory(self, expr) -> bool:
        return bool(collect(expr, lambda x: isinstance(x, BufferLoad) or (
            isinstance(x, Var) and (id(x) in self.loop_vars or x in self.lets))))


def _max(a, b):
    from ember.ir import Max

    return Max(a, b)


def _min(a, b):
    from ember.ir import Min

    return Min(a, b)


def _cast(e, dtype):
    from ember.ir import Cast

    if e.dtype == dtype:
        return e
    if isinstance(e, IntImm):
        return const(e.value, dtype)
    return Cast(dtype, e)


class _Compactor(IRMutator):
    """Gives each compacted buffer its new shape and shifts every index into it."""

    def __init__(self, new_buffers: dict, offsets: dict, analyzer):
        super().__init__()
        self.new_buffers = new_buffers  # id(old data) -> new Buffer
        self.offsets = offsets  # id(old data) -> [start per dimension]
        self.analyzer = analyzer

    def visit_Buffer(self, buf: Buffer):
        new = self.new_buffers.get(id(buf.data))
        return new if new is not None else buf

    def _shift(self, key, indices):
        return tuple(self.analyzer.simplify(i - o) if not (isinstance(o, IntImm) and o.value == 0) else i
                     for i, o in zip(indices, self.offsets[key]))

    def visit_BufferLoad(self, load: BufferLoad):
        indices = self.visit(load.indices)
        key = id(load.buffer.data)
        if key in self.new_buffers:
            return BufferLoad(self.new_buffers[key], self._shift(key, indices))
        return replace(load, indices=indices)

    def visit_BufferStore(self, store: BufferStore):
        value, indices = self.visit(store.value), self.visit(store.indices)
        key = id(store.buffer.data)
        if key in self.new_buffers:
            return BufferStore(self.new_buffers[key], value, self._shift(key, indices))
        return replace(store, value=value, indices=indices)

    def visit_BufferRegion(self, region: BufferRegion):
        key = id(region.buffer.data)
        if key not in self.new_buffers:
            return self.generic_visit(region)
        ranges = tuple(self.visit(region.region))
        starts = self._shift(key, [r.min for r in ranges])
        return BufferRegion(self.new_buffers[key], tuple(Range(s, r.extent) for s, r in zip(starts, ranges)))

    def visit_MatchBufferRegion(self, match: MatchBufferRegion):
        return replace(match, source=self.visit(match.source))

    def visit_Allocate(self, alloc: Allocate):
        alloc = self.generic_visit(alloc)
        new = self.new_buffers.get(id(alloc.buffer_var))
        if new is None:
            return alloc
        from .lower_opaque_block import _allocation_shape

        return replace(alloc, extents=_allocation_shape(new))  # strided rows allocate their stride


def _dim_aligns(body) -> dict:
    """id(data) -> [(axis, factor, offset)] from blocks' and Allocates' ``buffer_dim_align``."""
    found: dict = {}

    def visit(node):
        if isinstance(node, Block) and node.annotations:
            for index, axis, factor, offset in node.annotations.get(DIM_ALIGN, ()):
                buf = node.writes[int(index)].buffer
                found.setdefault(id(buf.data), []).append((int(axis), int(factor), int(offset)))
        elif isinstance(node, Allocate) and node.annotations and DIM_ALIGN in node.annotations:
            found.setdefault(id(node.buffer_var), []).extend(
                (int(a), int(f), int(o)) for a, f, o in node.annotations[DIM_ALIGN])

    post_order_visit(body, visit)
    return found


def _aligned_strides(shape, align):
    if not all(isinstance(d, IntImm) for d in shape):
        return ()
    strides, acc = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        for axis, factor, offset in align:
            if axis == d and factor > 0:
                acc += (offset - acc) % factor
        strides[d] = acc
        acc *= shape[d].value
    return tuple(const(s, shape[0].dtype) for s in strides)


def _candidates(func: PrimFunc) -> dict:
    """id(data Var) -> Buffer for memory allocated in the body and reached by one buffer."""
    allocated: dict = {}
    seen: dict = {}

    def visit(node):
        if isinstance(node, Block):
            for buf in node.alloc_buffers:
                allocated[id(buf.data)] = buf.data
        elif isinstance(node, Allocate):
            allocated[id(node.buffer_var)] = node.buffer_var
        if isinstance(node, Buffer):
            seen.setdefault(id(node.data), {})[id(node)] = node

    post_order_visit(func.body, visit)
    out = {}
    for key in allocated:
        bufs = list(seen.get(key, {}).values())
        if len(bufs) == 1:
            out[key] = bufs[0]
    return out


def compact_buffer_regions(func: PrimFunc, is_strict: bool = True) -> PrimFunc:
    """Shrink ``func``'s allocated buffers in place to the regions they are accessed in."""
    candidates = _candidates(func)
    if not candidates:
        return func
    loop_vars: set = set()

    def visit(node):
        if isinstance(node, For):
            loop_vars.add(id(node.loop_var))

    post_order_visit(func.body, visit)
    collector = _Collector(candidates, is_strict, loop_vars)
    collector.visit(func.body)
    if not collector.regions:
        return func
    aligns = _dim_aligns(func.body)
    new_buffers, offsets = {}, {}
    for key, region in collector.regions.items():
        buf = candidates[key]
        shape = tuple(r.extent for r in region)
        strides = _aligned_strides(shape, aligns[key]) if key in aligns else ()
        new_buffers[key] = replace(buf, shape=shape, strides=strides)
        offsets[key] = [r.min for r in region]
        logger.debug("CompactBufferAllocation: %s %s -> %s", buf.name, list(buf.shape), list(shape))
    return func.with_body(_Compactor(new_buffers, offsets, Analyzer()).visit(func.body))

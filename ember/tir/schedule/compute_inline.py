"""compute_inline and reverse_compute_inline.

``compute_inline(P)`` substitutes a producer's stored expression into every load of
the buffer it writes and removes the producer (and the buffer's allocation).
``reverse_compute_inline(C)`` folds an elementwise consumer into its producer: the
producer stores the consumer's expression directly into the consumer's output.
Both need "simple" blocks: one BufferStore, no reduction, indices that are distinct
block iterators.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import And, Var, replace
from ember.tir.buffer import BufferLoad
from ember.tir.functor import IRMutator, collect, substitute
from ember.tir.op import cast
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, IterVarType

from . import _arith
from .analysis import (
    consumers, infer_regions, is_reduction, is_true, path_to, producers, reads_buffer, replace_stmts,
)
from .errors import ScheduleError

__all__ = ["compute_inline", "reverse_compute_inline", "subtree_root", "drop_alloc", "refresh_regions"]


def subtree_root(func, realize: BlockRealize):
    """The outermost statement that contains ``realize`` and nothing else (its loop nest)."""
    node = realize
    for parent in reversed(path_to(func.body, realize) or []):
        if isinstance(parent, For) and parent.body is node:
            node = parent
        else:
            break
    return node


def drop_alloc(func, buffer):
    """Remove ``buffer`` from the alloc_buffers of whichever block allocates it."""
    def visit(n):
        if isinstance(n, Block) and any(b is buffer for b in n.alloc_buffers):
            found.append(n)

    found: list = []
    from ember.tir.functor import post_order_visit

    post_order_visit(func.body, visit)
    mapping = {b: replace(b, alloc_buffers=tuple(x for x in b.alloc_buffers if x is not buffer))
               for b in found}
    return replace_stmts(func, mapping) if mapping else func


def refresh_regions(block: Block, buffers, added=None) -> Block:
    """Re-infer the read/write regions of ``block`` when they mention one of ``buffers``.

    With ``added`` (the buffers an inlined expression reads), only the regions change that
    inlining can change: each region of a removed buffer in ``buffers`` gives way to the
    regions of ``added`` at its place, and the regions of ``added`` are recomputed; every
    other region stays as declared (an opaque access's region among them)."""
    touched = any(r.buffer in buffers for r in block.reads + block.writes)
    if not touched or block.name_hint == "root":
        return block
    if added is None:
        reads, writes = infer_regions(block)
        return replace(block, reads=reads, writes=writes)
    if any(r.buffer in buffers for r in block.writes):
        reads, writes = infer_regions(block)
        return replace(block, reads=reads, writes=writes)
    new_reads, _ = infer_regions(block, only=added)
    fresh = {id(r.buffer): r for r in new_reads}
    out, seen = [], set()
    for r in block.reads:
        group = new_reads if r.buffer in buffers else (fresh.get(id(r.buffer), r),)
        for x in group:
            if id(x.buffer) not in seen and x.buffer not in buffers:
                seen.add(id(x.buffer))
                out.append(x)
    out += [r for r in new_reads if id(r.buffer) not in seen]
    return replace(block, reads=tuple(out))


def _simple_store(func, realize: BlockRealize, what: str) -> BufferStore:
    block = realize.block
    if is_reduction(block):
        raise ScheduleError(f"{what}: block {block.name_hint!r} is a reduction block; only blocks "
                            "with spatial iterators and no init can be inlined", func, block=block)
    if len(block.writes) != 1:
        raise ScheduleError(f"{what}: block {block.name_hint!r} writes {len(block.writes)} buffers; "
                            "it must write exactly one", func, block=block)
    if not isinstance(block.body, BufferStore):
        raise ScheduleError(f"{what}: the body of block {block.name_hint!r} must be a single "
                            "BufferStore", func, block=block)
    return block.body


def _distinct_iter_vars(func, block: Block, indices, what: str, role: str) -> list[Var]:
    ivars = [iv.var for iv in block.iter_vars]
    out = []
    for index in indices:
        if not isinstance(index, Var) or index not in ivars or index in out:
            raise ScheduleError(
                f"{what}: the {role} indices of block {block.name_hint!r} must be distinct block "
                f"iterators, got [{', '.join(repr(i) for i in indices)}]", func, block=block)
        out.append(index)
    return out


def bind_with_casts(params, values) -> dict:
    """``params`` bound to ``values``, each cast to its parameter's dtype where they differ
    (an int32 producer read with int64 consumer indices keeps int32 arithmetic)."""
    return {p: cast(v, p.dtype) for p, v in zip(params, values)}


class _InlineLoads(IRMutator):
    """Replace loads of ``buffer`` by ``value`` with ``params`` bound to the load indices."""

    def __init__(self, buffer, params, value):
        super().__init__()
        self.buffer, self.params, self.value = buffer, params, value

    def visit_BufferLoad(self, load):
        load = self.generic_visit(load)
        if load.buffer is not self.buffer:
            return load
        return substitute(self.value, bind_with_casts(self.params, load.indices))

    def visit_Block(self, block):
        new = self.generic_visit(block)
        if new is block:
            return block
        added = {id(n.buffer): n.buffer for n in collect(self.value, lambda n: isinstance(n, BufferLoad))}
        return refresh_regions(new, {self.buffer}, list(added.values()))


def compute_inline(func, realize: BlockRealize):
    block = realize.block
    store = _simple_store(func, realize, "compute_inline")
    buffer = store.buffer
    if any(b is buffer for b in func.buffer_map.values()):
        raise ScheduleError(f"compute_inline: block {block.name_hint!r} writes the function's output "
                            f"buffer {buffer.name!r}, which cannot be inlined", func, block=block)
    from .analysis import blocks_under

    others = [r.block.name_hint for r in blocks_under(func.body)
              if r is not realize and any(w.buffer is buffer for w in r.block.writes) and r.block.name_hint != "root"]
    if others:
        raise ScheduleError(f"compute_inline: buffer {buffer.name!r} is also written by block(s) {others}; "
                            "only a buffer's single writer can be inlined", func, block=block)
    params = _distinct_iter_vars(func, block, store.indices, "compute_inline", "store")
    used = {id(v) for v in collect(store.value, lambda n: isinstance(n, Var))}
    missing = [iv.var.name for iv in block.iter_vars if id(iv.var) in used and iv.var not in params]
    if missing:
        raise ScheduleError(f"compute_inline: iterators {missing} of block {block.name_hint!r} are used "
                            "in its value but not in its store indices", func, block=block)
    if any(isinstance(n, BufferLoad) and n.buffer is buffer for n in collect(store.value, lambda n: True)):
        raise ScheduleError(f"compute_inline: block {block.name_hint!r} reads the buffer it writes",
                            func, block=block)
    _check_no_opaque_access(func, buffer, "compute_inline", block)
    func = replace_stmts(func, {subtree_root(func, realize): None})
    body = _InlineLoads(buffer, params, store.value).visit(func.body)
    return drop_alloc(replace(func, body=body), buffer)


def reverse_compute_inline(func, realize: BlockRealize):
    block = realize.block
    store = _simple_store(func, realize, "reverse_compute_inline")
    prods = producers(func, realize)
    loads = [n for n in collect(store.value, lambda n: isinstance(n, BufferLoad))
             if any(n.buffer is w.buffer for p in prods for w in p.block.writes)]
    if not prods or not loads:
        raise ScheduleError(f"reverse_compute_inline: block {block.name_hint!r} has no producer block "
                            "to be inlined into", func, block=block)
    buffer = loads[0].buffer
    first = [_arith.expr_key(i) for i in loads[0].indices]
    if any(ld.buffer is not buffer or [_arith.expr_key(i) for i in ld.indices] != first for ld in loads):
        raise ScheduleError(f"reverse_compute_inline: block {block.name_hint!r} must read its "
                            f"producer's buffer {buffer.name!r} once, at one place", func, block=block)
    producer = [p for p in prods if reads_buffer(block, buffer) and
                any(w.buffer is buffer for w in p.block.writes)][-1]
    pblock = producer.block
    if is_reduction(pblock) or not isinstance(pblock.body, BufferStore):
        raise ScheduleError(f"reverse_compute_inline: the producer {pblock.name_hint!r} must be a "
                            "non-reduction block with one BufferStore", func, block=pblock)
    if any(b is buffer for b in func.buffer_map.values()):
        raise ScheduleError(f"reverse_compute_inline: buffer {buffer.name!r} is a function parameter "
                            "and cannot be removed", func, block=block)
    if len(consumers(func, producer)) != 1:
        raise ScheduleError(f"reverse_compute_inline: buffer {buffer.name!r} has other consumers "
                            f"besides block {block.name_hint!r}", func, block=block)
    _check_no_opaque_access(func, buffer, "reverse_compute_inline", block)
    pstore = pblock.body
    vmap = _consumer_iters(func, block, loads[0].indices, pstore.indices, buffer)
    if not is_true(realize.predicate) and not Analyzer().can_prove(realize.predicate):
        raise ScheduleError(f"reverse_compute_inline: block {block.name_hint!r} has a predicate, so it reads "
                            f"only part of what its producer {pblock.name_hint!r} writes to {buffer.name!r}; "
                            "inlining it would write outside its output", func, block=block)
    value = _InlineLoads(buffer, [], pstore.value).visit(substitute(store.value, vmap))
    new_store = BufferStore(store.buffer, value, tuple(substitute(i, vmap) for i in store.indices))
    new_pblock = replace(pblock, body=new_store)
    reads, writes = infer_regions(new_pblock)
    new_pblock = replace(new_pblock, reads=reads, writes=writes)
    new_producer = replace(producer, block=new_pblock,
                           predicate=_cover_predicate(block, producer, vmap))
    func = replace_stmts(func, {subtree_root(func, realize): None, producer: new_producer})
    return drop_alloc(func, buffer)


def _check_no_opaque_access(func, buffer, what: str, block: Block) -> None:
    """Inlining removes ``buffer``: refuse when something uses it other than by loads and
    stores -- its data pointer (``access_ptr``, an extern call) or a matched sub-region."""
    from .analysis import _stmt_exprs, walk

    for stmt in walk(func.body):
        if isinstance(stmt, Block) and any(m.source.buffer is buffer for m in stmt.match_buffers):
            why = f"block {stmt.name_hint!r} matches a region of it"
        elif any(_uses_var(e, buffer.data) for e in _stmt_exprs(stmt)):
            why = "its data pointer is used directly"
        else:
            continue
        raise ScheduleError(f"{what}: buffer {buffer.name!r} is accessed opaquely ({why}); only a "
                            "buffer read and written through loads and stores can be inlined", func, block=block)


def _uses_var(e, var) -> bool:
    """Whether ``var`` occurs in ``e`` as a value (not as the data of a loaded buffer)."""
    from ember.ir import PrimExpr, fields_of

    stack = [e]
    while stack:
        x = stack.pop()
        if x is var:
            return True
        if isinstance(x, BufferLoad):
            stack.extend(x.indices)
            continue
        if isinstance(x, PrimExpr):
            for name in fields_of(x):
                value = getattr(x, name)
                if isinstance(value, PrimExpr):
                    stack.append(value)
                elif isinstance(value, tuple | list):
                    stack.extend(v for v in value if isinstance(v, PrimExpr))
    return False


def _consumer_iters(func, block: Block, load_indices, store_indices, buffer) -> dict:
    """Each iterator of the consumer ``block`` as an expression of the producer's iterators:
    directly when the load uses distinct iterators, else by inverting an affine load
    (``B[i * 16 + j, k]``); iterators of extent one are at their start."""
    spatial = [iv for iv in block.iter_vars if iv.iter_type == IterVarType.DataPar]
    units = {iv.var: iv.dom.min for iv in spatial if _arith.is_const(iv.dom.extent, 1)}
    try:
        params = _distinct_iter_vars(func, block, load_indices, "reverse_compute_inline", "load")
        vmap = bind_with_casts(params, store_indices)
    except ScheduleError as err:
        from .affine_inverse import invert_load

        iters = {iv.var: iv.dom for iv in spatial}
        vmap = invert_load(load_indices, iters, store_indices)
        if vmap is None:
            raise err from None
    for var, start in units.items():
        vmap.setdefault(var, start)
    if {id(v) for v in vmap} != {id(iv.var) for iv in spatial} or len(vmap) != len(spatial):
        raise ScheduleError(f"reverse_compute_inline: the load of {buffer.name!r} in block "
                            f"{block.name_hint!r} must use every spatial iterator exactly once",
                            func, block=block)
    return vmap


def _cover_predicate(block: Block, producer: BlockRealize, vmap: dict):
    """The producer's predicate, and: each consumer iterator (as a function of the producer's
    iterators) within its domain wherever that is not certain -- the producer may compute
    more than the consumer reads (TVM adds the same predicate), in the producer's loops."""
    pblock = producer.block
    bounds = {iv.var: _arith.const_bound(iv.dom.min)[:1] + _arith.const_bound(iv.dom.min + iv.dom.extent - 1)[1:]
              for iv in pblock.iter_vars}
    bounds = {v: b for v, b in bounds.items() if None not in b}
    binding = {iv.var: v for iv, v in zip(pblock.iter_vars, producer.iter_values)}
    old = producer.predicate
    have = {_arith.expr_key(c) for c in _conjuncts(old)}
    ana, prover = Analyzer(), Analyzer()
    for piv in pblock.iter_vars:
        prover.bind(piv.var, piv.dom)
    conds = []
    for iv in block.iter_vars:
        if iv.var not in vmap or _arith.is_const(iv.dom.extent, 1):
            continue
        e = vmap[iv.var]
        lo, hi = _arith.const_bound(e, bounds)
        dlo, dhi = _arith.as_int(iv.dom.min), _arith.as_int(_arith.simplify(iv.dom.min + iv.dom.extent - 1))
        at = substitute(e, binding)
        if (lo is None or dlo is None or lo < dlo) and not prover.can_prove(iv.dom.min <= e):
            conds.append(ana.simplify(iv.dom.min <= at))
        if (hi is None or dhi is None or hi > dhi) and not prover.can_prove(e < iv.dom.min + iv.dom.extent):
            conds.append(ana.simplify(at < iv.dom.min + iv.dom.extent))
    pred = old
    for c in conds:
        if _arith.expr_key(c) in have:
            continue
        pred = c if is_true(pred) else And(pred, c)
    return pred


def _conjuncts(e) -> list:
    return _conjuncts(e.a) + _conjuncts(e.b) if isinstance(e, And) else [e]

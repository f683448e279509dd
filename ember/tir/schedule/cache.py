"""Memory primitives: set_scope, storage_align, reindex (cache_read / cache_write live in
``cache_stage.py``), and the helpers they share with it (``_pick``, ``_check_scope``,
``_scope_name``, ``ReplaceBuffer``).
"""

from __future__ import annotations

from ember.ir import PointerType, Range, Var, const, replace
from ember.tir.buffer import BufferRegion, decl_buffer
from ember.tir.functor import IRMutator
from ember.tir.stmt import (
    Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType, SeqStmt, seq,
)

from .analysis import (
    blocks_under, find_block, infer_regions, path_to, replace_stmts, scope_of, unique_name,
)
from .compute_inline import subtree_root
from .errors import ScheduleError

__all__ = ["reindex", "set_scope", "storage_align", "ReplaceBuffer"]


class ReplaceBuffer(IRMutator):
    """Replace Buffer objects by identity (loads, stores, regions, allocations)."""

    def __init__(self, mapping: dict):
        super().__init__()
        self.mapping = {id(k): v for k, v in mapping.items()}

    def visit_Buffer(self, buf):
        return self.mapping.get(id(buf), buf)


def _pick(func, block: Block, regions, index: int, what: str, kind: str):
    if not isinstance(index, int) or not 0 <= index < len(regions):
        names = ", ".join(f"{k}: {r.buffer.name}" for k, r in enumerate(regions)) or "none"
        raise ScheduleError(f"{what}: {kind}_buffer_index {index!r} is out of range for block "
                            f"{block.name_hint!r} (its {kind}s: {names})", func, block=block)
    return regions[index].buffer


def _check_scope(func, block, storage_scope: str, what: str) -> None:
    rank = str(storage_scope).split(".")[0]
    if rank not in _SCOPE_RANKS:
        raise ScheduleError(f"{what}: unknown storage scope {storage_scope!r}; expected one of "
                            f"{', '.join(sorted(_SCOPE_RANKS))} (optionally with a tag, e.g. 'shared.dyn')",
                            func, block=block)


def _scope_name(buffer, scope: str) -> str:
    return f"{buffer.name}_{scope.replace('.', '_')}"


def _add_alloc(func, scope_name: str, buffer):
    sb = find_block(func, scope_name).block
    return replace_stmts(func, {sb: replace(sb, alloc_buffers=sb.alloc_buffers + (buffer,))})


def _scope_children(scope: BlockRealize):
    body = scope.block.body
    return list(body.seq) if isinstance(body, SeqStmt) else [body]


def _top_level(scope: BlockRealize, stmt):
    """The child of ``scope``'s body that contains ``stmt``."""
    for child in _scope_children(scope):
        if child is stmt or path_to(child, stmt) is not None:
            return child
    return None


def _enclosing_loop(func, block_name: str, what: str):
    """The loop directly around the nest of ``block_name`` and that nest's index in its body."""
    realize = find_block(func, block_name)
    sub = subtree_root(func, realize)
    path = path_to(func.body, sub) or []
    loops = [s for s in path if isinstance(s, For)]
    if not loops:
        raise ScheduleError(f"{what}: cannot place the cache stage next to block {block_name!r}", func,
                            block=realize.block)
    loop = loops[-1]
    children = loop.body.seq if isinstance(loop.body, SeqStmt) else (loop.body,)
    index = next(k for k, c in enumerate(children) if c is sub or path_to(c, sub) is not None)
    return loop, index


def set_scope(func, realize: BlockRealize, buffer_index: int, storage_scope: str):
    block = realize.block
    buffer = _pick(func, block, block.writes, buffer_index, "set_scope", "write")
    if any(b is buffer for b in func.buffer_map.values()):
        raise ScheduleError(f"set_scope: buffer {buffer.name!r} is a function parameter; only allocated "
                            "buffers can change scope", func, block=block)
    rank = str(storage_scope).split(".")[0]
    if rank not in _SCOPE_RANKS:
        raise ScheduleError(f"set_scope: unknown storage scope {storage_scope!r}; expected one of "
                            f"{', '.join(sorted(_SCOPE_RANKS))} (optionally with a tag, e.g. 'shared.dyn')",
                            func, block=block)
    if buffer.scope() == storage_scope:
        return func

    def rescoped(buf):
        data = Var(buf.data.name, "handle", PointerType(buf.dtype, storage_scope))
        return replace(buf, data=data)

    mapping = {buffer: rescoped(buffer)}
    from ember.tir.buffer import MatchBufferRegion
    from ember.tir.functor import collect

    for m in collect(func.body, lambda x: isinstance(x, MatchBufferRegion) and x.source.buffer is buffer):
        mapping[m.buffer] = rescoped(m.buffer)  # views of the buffer live where it lives
    return replace(func, body=ReplaceBuffer(mapping).visit(func.body))


_SCOPE_RANKS = {"global", "shared", "warp", "local", "wmma", "metal", "m16n8k8", "texture"}


def storage_align(func, realize: BlockRealize, buffer_index: int, axis: int, factor: int, offset: int):
    block = realize.block
    buffer = _pick(func, block, block.writes, buffer_index, "storage_align", "write")
    if any(b is buffer for b in func.buffer_map.values()):
        raise ScheduleError(f"storage_align: buffer {buffer.name!r} is a parameter of the function; only "
                            "buffers allocated inside it can be aligned", func, block=block)
    ndim = len(buffer.shape)
    if not -ndim <= axis < ndim:
        raise ScheduleError(f"storage_align: axis {axis} is out of range for the {ndim}-d buffer "
                            f"{buffer.name!r}", func, block=block)
    if factor <= 0:
        raise ScheduleError(f"storage_align: factor must be positive, got {factor}", func, block=block)
    # a new alignment of the same buffer axis replaces the old one (as TVM)
    entries = [e for e in block.annotations.get("buffer_dim_align", [])
               if not (int(e[0]) == buffer_index and int(e[1]) == axis % ndim)]
    entries.append([buffer_index, axis % ndim, factor, offset])
    new = replace(block, annotations={**block.annotations, "buffer_dim_align": entries})
    return replace_stmts(func, {block: new})



def reindex(func, realize: BlockRealize, buffer):
    """A copy of a buffer laid out by the iterators of the block accessing it.

    ``buffer`` is ``("read", i)`` or ``("write", i)``.  The block's accesses (which must
    all use the same indices) become ``<buf>_reindex[v...]`` over the block iterators
    the indices use; a stage block ``<buf>_reindex`` copies in before (read) or out
    after (write) the block's loop nest.
    """
    from ember.tir.buffer import BufferLoad
    from ember.tir.functor import collect, substitute

    from . import _arith
    from .analysis import vars_in

    block = realize.block
    if not (isinstance(buffer, tuple | list) and len(buffer) == 2 and buffer[0] in ("read", "write")):
        raise ScheduleError(f"reindex: buffer must be ('read' | 'write', index), got {buffer!r}", func,
                            block=block)
    kind, index = buffer
    regions = block.reads if kind == "read" else block.writes
    buf = _pick(func, block, regions, index, "reindex", kind)
    others = [r.block.name_hint for r in blocks_under(func.body) if r is not realize
              and any(w.buffer is buf for w in r.block.writes) and r.block.name_hint != "root"
              and path_to(r, realize) is None and path_to(realize, r) is None]
    if kind == "write" and others:
        raise ScheduleError(f"reindex: buffer {buf.name!r} is also written by block(s) {others}; a write "
                            "reindex needs the block to be its only writer", func, block=block)
    if kind == "read" and any(w.buffer is buf for w in block.writes):
        raise ScheduleError(f"reindex: block {block.name_hint!r} also writes {buf.name!r}; reindex it as "
                            "('write', i)", func, block=block)
    scope = scope_of(func, realize)
    if scope is None or scope is not func.body:
        raise ScheduleError("reindex: only blocks directly in the function's root scope are supported",
                            func, block=block)
    accesses = [n.indices for part in (block.init, block.body) if part is not None
                for n in collect(part, lambda x: isinstance(x, BufferLoad | BufferStore) and x.buffer is buf)]
    keys = {tuple(_arith.expr_key(i) for i in idx) for idx in accesses}
    if len(keys) != 1:
        raise ScheduleError(f"reindex: block {block.name_hint!r} must access {buf.name!r} with one set of "
                            "indices", func, block=block)
    bounds = {}
    for iv in block.iter_vars:
        lo, ext = _arith.as_int(iv.dom.min), _arith.as_int(iv.dom.extent)
        if lo is not None and ext is not None:
            bounds[iv.var] = (lo, lo + ext - 1)
    # simplified within the iterators' domains first: ``co // 64 * 3 + rc`` is ``rc`` for co < 64
    indices = tuple(_arith.simplify(i, bounds) for i in accesses[0])
    for d, i in enumerate(indices):
        lo, hi = _arith.const_bound(i, bounds)
        dim = _arith.as_int(buf.shape[d])
        if lo is None or hi is None or dim is None or lo < 0 or hi >= dim:
            raise ScheduleError(f"reindex: the access {buf.name}[{', '.join(map(repr, indices))}] of block "
                                f"{block.name_hint!r} may fall outside the buffer (a guarded access)",
                                func, block=block)
    used_vars = {v for i in indices for v in vars_in(i)}
    used = [iv for iv in block.iter_vars if iv.var in used_vars]
    name = unique_name(func, buf.name + "_reindex")
    new = decl_buffer(tuple(iv.dom.extent for iv in used), buf.dtype, name)
    new_idx = tuple(iv.var for iv in used)

    class _Swap(IRMutator):
        def visit_BufferLoad(self, n):
            return BufferLoad(new, new_idx) if n.buffer is buf else self.generic_visit(n)

        def visit_BufferStore(self, n):
            value = self.visit(n.value)
            return BufferStore(new, value, new_idx) if n.buffer is buf else replace(n, value=value)

    swap = _Swap()
    new_block = replace(block, body=swap.visit(block.body),
                        init=None if block.init is None else swap.visit(block.init))
    # the declared regions stay; those of the buffer become the point new[v...] (as in TVM)
    point = BufferRegion(new, tuple(Range(v, const(1, v.dtype)) for v in new_idx))
    reads, writes = (tuple(point if r.buffer is buf else r for r in regions)
                     for regions in (block.reads, block.writes))
    new_block = replace(new_block, reads=reads, writes=writes)
    ivs = [IterVar(iv.dom, Var(f"v{k}", iv.var.dtype), IterVarType.DataPar) for k, iv in enumerate(used)]
    vmap = {iv.var: n.var for iv, n in zip(used, ivs)}
    src = BufferLoad(buf, tuple(substitute(i, vmap) for i in indices))
    store = (BufferStore(new, src, tuple(n.var for n in ivs)) if kind == "read" else
             BufferStore(buf, BufferLoad(new, tuple(n.var for n in ivs)), src.indices))
    stage_block = Block(tuple(ivs), (), (), name, store)
    r, w = infer_regions(stage_block)
    loops = [Var(f"ax{k}", iv.dom.extent.dtype) for k, iv in enumerate(ivs)]  # int64 extents: int64 loops
    stage = BlockRealize(tuple(loops), const(True), replace(stage_block, reads=r, writes=w))
    for var, iv in reversed(list(zip(loops, ivs))):
        stage = For(var, const(0, var.dtype), iv.dom.extent, ForKind.SERIAL, stage)
    top = _top_level(scope, realize)
    role = (lambda r: any(w.buffer is buf for w in r.block.writes)) if kind == "read" else \
        (lambda r: any(x.buffer is buf for x in r.block.reads))
    entangled = any(role(r) for r in blocks_under(top) if r is not realize)
    moved = replace_stmts(top, {block: new_block})
    func = replace_stmts(func, {top: seq(stage, moved) if kind == "read" else seq(moved, stage)})
    func = _add_alloc(func, scope.block.name_hint, new)
    if entangled:  # the buffer is produced / consumed in the same loop nest: move the stage in
        from .compute_location import compute_at, reverse_compute_at

        loop, index = _enclosing_loop(func, block.name_hint, "reindex")
        if kind == "read":
            func = compute_at(func, find_block(func, name), loop, False, index)
        else:
            func = reverse_compute_at(func, find_block(func, name), loop, False, index + 1)
    return func, name

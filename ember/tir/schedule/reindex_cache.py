"""reindex_cache_read and reindex_cache_write: a cache laid out by the block's iterators.

The block must access the buffer at one point (``A[vi, vj]``, not a tile).  The cache
buffer is indexed by ``index_map`` applied to the block's iterators (``lambda i, j:
(j, i // 2, i % 2)`` gives ``B_shared[vj, vi // 2, vi % 2]``) and shaped by the map
applied to their extents.  The copy stage repeats the block's iteration: its
iterators are those of the block the access uses (all spatial), bound as in the block,
over copies of the block's loops below the stage's place (placed as ``cache_read`` /
``cache_write`` place theirs).  Only the block itself reads (writes) the cache.
"""

from __future__ import annotations

from ember.ir import Range, Var, const, replace
from ember.tir.buffer import BufferLoad, BufferRegion, decl_buffer
from ember.tir.functor import IRMutator, collect, substitute
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType

from .analysis import path_to, replace_stmts, scope_of, unique_name
from .cache_stage import _find_same, _insert, _locate, _readers_in, _writers_in
from .errors import ScheduleError

__all__ = ["reindex_cache_read", "reindex_cache_write"]


def _vars(exprs) -> set:
    return {id(v) for e in exprs for v in collect(e, lambda n: isinstance(n, Var))}


class _Redirect(IRMutator):
    """Accesses of ``old`` (loads, stores, regions) become the point ``new[indices]``."""

    def __init__(self, old, new, indices):
        super().__init__()
        self.old, self.new, self.indices = old, new, tuple(indices)

    def visit_Buffer(self, buf):
        return buf

    def visit_BufferRegion(self, r):
        if r.buffer is self.old:
            return BufferRegion(self.new, tuple(Range(i, const(1, i.dtype)) for i in self.indices))
        return r

    def visit_BufferLoad(self, n):
        n = self.generic_visit(n)
        return BufferLoad(self.new, self.indices) if n.buffer is self.old else n

    def visit_BufferStore(self, s):
        s = self.generic_visit(s)
        return BufferStore(self.new, s.value, self.indices) if s.buffer is self.old else s


def _reindex_cache(func, realize: BlockRealize, index: int, storage_scope: str, index_map, reading: bool):
    from .cache import _check_scope, _pick, _scope_name

    what = "reindex_cache_read" if reading else "reindex_cache_write"
    block = realize.block
    kind = "read" if reading else "write"
    regions = block.reads if reading else block.writes
    buffer = _pick(func, block, regions, index, what, kind)
    _check_scope(func, block, storage_scope, what)
    scope = scope_of(func, realize)
    if scope is None:
        raise ScheduleError(f"{what}: block {block.name_hint!r} is the root block", func, block=block)
    region = next(r for r in regions if r.buffer is buffer)
    if not all(str(r.extent) == "1" or getattr(r.extent, "value", None) == 1 for r in region.region):
        raise ScheduleError(f"{what}: block {block.name_hint!r} accesses {buffer.name!r} over the region "
                            f"{region!r}, not at a single point", func, block=block)
    ivs = list(block.iter_vars)
    if index_map.ndim != len(ivs):
        raise ScheduleError(f"{what}: the index map takes {index_map.ndim} indices but block "
                            f"{block.name_hint!r} has {len(ivs)} iterators", func, block=block)
    new_indices = index_map.map_indices([iv.var for iv in ivs])
    try:
        new_shape = index_map.map_shape([iv.dom.extent for iv in ivs])
    except ValueError as err:
        raise ScheduleError(f"{what}: {err}", func, block=block) from None
    old_indices = [r.min for r in region.region]
    in_old, in_new = _vars(old_indices), _vars(new_indices)
    for iv in ivs:
        if (id(iv.var) in in_old) != (id(iv.var) in in_new):
            raise ScheduleError(f"{what}: iterator {iv.var.name!r} of block {block.name_hint!r} is used by "
                                f"{'the access' if id(iv.var) in in_old else 'the index map'} but not by "
                                f"{'the index map' if id(iv.var) in in_old else 'the access'}: the cache "
                                "must hold the same elements", func, block=block)

    writers = _writers_in(scope, buffer)
    if reading:
        if len(writers) > 1:
            raise ScheduleError(f"{what}: buffer {buffer.name!r} is written by several blocks; it needs a "
                                "single producer", func, block=block)
        loc, pos = _locate(scope.block, writers[0].block if writers else None, [block])
    else:
        if [w for w in writers if w is not realize]:
            raise ScheduleError(f"{what}: buffer {buffer.name!r} is also written by other blocks", func,
                                block=block)
        loc, pos = _locate(scope.block, block, _readers_in(scope, buffer, realize))

    name = unique_name(func, _scope_name(buffer, storage_scope))
    new = decl_buffer(tuple(new_shape), buffer.dtype, name, scope=storage_scope)
    # the stage: the used iterators (spatial), bound as in the block, over copies of its loops
    used = [(iv, v) for iv, v in zip(ivs, realize.iter_values) if id(iv.var) in in_old]
    value_vars = _vars([v for _, v in used])
    loops = [s for s in (path_to(loc, realize) or []) if isinstance(s, For) and s is not loc
             and id(s.loop_var) in value_vars]
    loop_map = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in loops}
    stage_ivs = [IterVar(iv.dom, Var(f"v{k}", iv.var.dtype), IterVarType.DataPar) for k, (iv, _) in enumerate(used)]
    var_map = {iv.var: s.var for (iv, _), s in zip(used, stage_ivs)}
    orig_at = tuple(substitute(i, var_map) for i in old_indices)
    cache_at = tuple(substitute(i, var_map) for i in new_indices)
    point = lambda buf, idx: BufferRegion(buf, tuple(Range(i, const(1, i.dtype)) for i in idx))  # noqa: E731
    if reading:
        body = BufferStore(new, BufferLoad(buffer, orig_at), cache_at)
        rw = ((point(buffer, orig_at),), (point(new, cache_at),))
    else:
        body = BufferStore(buffer, BufferLoad(new, cache_at), orig_at)
        rw = ((point(new, cache_at),), (point(buffer, orig_at),))
    stage = BlockRealize(tuple(substitute(v, loop_map) for _, v in used), const(True),
                         Block(tuple(stage_ivs), rw[0], rw[1], name, body))
    for lp in reversed(loops):
        stage = For(loop_map[lp.loop_var], lp.min, lp.extent, ForKind.SERIAL, stage)

    loc_new = replace(loc, body=_insert(loc.body, pos, stage))
    func = replace_stmts(func, {loc: loc_new})
    scope_block = loc_new if loc is scope.block else _find_same(func, scope)
    func = replace_stmts(func, {scope_block: replace(scope_block, alloc_buffers=scope_block.alloc_buffers + (new,))})
    func = replace_stmts(func, {block: _Redirect(buffer, new, new_indices).visit(block)})
    return func, name


def reindex_cache_read(func, realize: BlockRealize, read_buffer_index: int, storage_scope: str, index_map):
    return _reindex_cache(func, realize, read_buffer_index, storage_scope, index_map, reading=True)


def reindex_cache_write(func, realize: BlockRealize, write_buffer_index: int, storage_scope: str, index_map):
    return _reindex_cache(func, realize, write_buffer_index, storage_scope, index_map, reading=False)

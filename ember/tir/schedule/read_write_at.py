"""``read_at`` / ``write_at``: copy the part of a buffer a loop body uses into another
storage scope, right inside that loop.

``read_at(loop, block, i, scope)`` takes the ``i``-th read buffer ``src`` of ``block`` and
a new buffer ``src_<scope>`` (same shape, allocated in the scope root).  Among the
statements of ``loop``'s body, from the first one that reads ``src`` on, every access of
``src`` becomes an access of the new buffer, and just before that statement an
``auto_copy`` block copies the region they read: the union of their read regions,
relaxed over the loops between each block and ``loop`` (and over the thread loops the
scope is shared by, e.g. threadIdx for "shared").  The block's iterators are the outer
loop variables that region depends on (``v0``, ``v1``, …), its body plain loops.

``write_at`` mirrors it for the ``i``-th write buffer: statements up to the last one
writing ``src`` write the new buffer, and a copy block after them writes the region back.

Refused: a read buffer written in the loop body before it is read (read_at), a write
buffer read after its last write (write_at), and a loop not above the block.
"""

from __future__ import annotations

from ember.arith.analyzer import Analyzer
from ember.arith.int_set import eval_set
from ember.ir import Range, Var, const, replace
from ember.tir.buffer import BufferRegion, decl_buffer
from ember.tir.functor import substitute
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType, SeqStmt, seq

from .analysis import blocks_under, find_block, path_to, replace_stmts, scope_of, vars_in
from .cache import ReplaceBuffer
from .errors import ScheduleError

__all__ = ["read_at", "write_at"]


def read_at(func, loop: For, realize: BlockRealize, buffer_index: int, storage_scope: str):
    return _read_write_at(func, loop, realize, buffer_index, storage_scope, is_read=True)


def write_at(func, loop: For, realize: BlockRealize, buffer_index: int, storage_scope: str):
    return _read_write_at(func, loop, realize, buffer_index, storage_scope, is_read=False)


def _read_write_at(func, loop: For, realize: BlockRealize, index: int, scope: str, is_read: bool):
    what = "read_at" if is_read else "write_at"
    block = realize.block
    regions = block.reads if is_read else block.writes
    if not isinstance(index, int) or not 0 <= index < len(regions):
        raise ScheduleError(f"{what}: block {block.name_hint!r} has no {'read' if is_read else 'write'} buffer "
                            f"{index} (it has {len(regions)})", func, block=block)
    src = regions[index].buffer
    if path_to(loop, realize) is None:
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} is not above block {block.name_hint!r}",
                            func, block=block)
    dst = decl_buffer(src.shape, src.dtype, f"{src.name}_{scope}", scope=scope)
    subtrees = list(loop.body.seq) if isinstance(loop.body, SeqStmt) else [loop.body]
    r_pos, w_pos, relaxed = [], [], []
    for k, sub in enumerate(subtrees):
        reads = writes = False
        for r in blocks_under(sub):
            b = r.block
            has_r = any(x.buffer is src for x in b.reads)
            has_w = any(x.buffer is src for x in b.writes)
            reads, writes = reads or has_r, writes or has_w
            if has_r if is_read else has_w:
                relaxed += _relaxed(func, loop, r, b.reads if is_read else b.writes, src, scope)
        if reads:
            r_pos.append(k)
        if writes:
            w_pos.append(k)
    if is_read:
        if w_pos and w_pos[-1] >= r_pos[0]:
            raise ScheduleError(f"read_at: {src.name!r} is written inside loop {loop.loop_var.name!r} at or after "
                                "its first read there", func, loop=loop)
        insert, lo, hi = r_pos[0], r_pos[0], len(subtrees)
    else:
        if r_pos and r_pos[-1] > w_pos[-1]:
            raise ScheduleError(f"write_at: {src.name!r} is read inside loop {loop.loop_var.name!r} after its last "
                                "write there", func, loop=loop)
        insert, lo, hi = w_pos[-1] + 1, 0, w_pos[-1] + 1
    ana = Analyzer()
    domain = []
    for d in range(len(src.shape)):
        mn = ana.simplify(_fold([r[d][0] for r in relaxed], "min"))
        mx = ana.simplify(_fold([r[d][1] for r in relaxed], "max"))
        domain.append(Range(mn, ana.simplify(mx + 1 - mn)))
    mapper = ReplaceBuffer({src: dst})
    for k in range(lo, hi):
        subtrees[k] = mapper.visit(subtrees[k])
    copy = _copy_block(func, loop, f"{src.name}_{scope}", src if is_read else dst, dst if is_read else src,
                       domain)
    subtrees.insert(insert, copy)
    new_loop = replace(loop, body=seq(*subtrees))
    root = scope_of(func, realize)
    func = replace_stmts(func, {loop: new_loop})
    root = find_block(func, root.block.name_hint)
    func = replace_stmts(func, {root.block: replace(root.block, alloc_buffers=root.block.alloc_buffers + (dst,))})
    return func, copy.block.name_hint


def _fold(exprs, how):
    from ember.ir import Max, Min

    out = exprs[0]
    for e in exprs[1:]:
        out = Min(out, e) if how == "min" else Max(out, e)
    return out


_RANK = {"global": 0, "shared": 1, "warp": 2, "local": 3}


def _relaxes(scope: str, tag: str) -> bool:
    rank = _RANK.get(scope.split(".")[0], 0)
    if rank == 0:
        return False
    if rank == 2:
        return tag == "threadIdx.x"
    return rank <= (0 if tag.startswith("blockIdx") else 1)


def _relaxed(func, loop: For, realize: BlockRealize, regions, src, scope: str) -> list:
    """The regions of ``src`` among ``regions``, as inclusive (min, max) per dimension, relaxed
    over the loops between the block and ``loop`` and the thread loops ``scope`` shares."""
    path = path_to(func.body, realize) or []
    k = next(i for i, s in enumerate(path) if s is loop)
    dom = {}
    for s in path[k + 1:]:
        if isinstance(s, For):
            dom[s.loop_var] = Range(s.min, s.extent)
    for s in path[:k + 1]:
        if isinstance(s, For) and s.thread_binding is not None and _relaxes(scope, s.thread_binding.thread_tag):
            dom[s.loop_var] = Range(s.min, s.extent)
    binding = {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
    out = []
    for region in regions:
        if region.buffer is not src:
            continue
        dims = []
        for r in region.region:
            lo = eval_set(substitute(r.min, binding), dom).min_value
            hi = eval_set(substitute(r.min + r.extent - 1, binding), dom).max_value
            dims.append((lo, hi))
        out.append(dims)
    return out


def _copy_block(func, loop: For, name: str, copy_from, copy_to, domain: list) -> BlockRealize:
    """``copy_to[region] = copy_from[region]`` in a block whose iterators are the outer loop
    variables the region depends on."""
    outer = {}
    for s in [loop] + list(reversed(path_to(func.body, loop) or [])):
        if isinstance(s, Block | BlockRealize):
            break
        if isinstance(s, For):
            outer[s.loop_var] = Range(s.min, s.extent)
    to_iter, ivs, values = {}, [], []

    def rename(e):
        for v in vars_in(e):
            if v in outer and v not in to_iter:
                iv = Var(f"v{len(ivs)}", v.dtype)
                to_iter[v] = iv
                ivs.append(IterVar(outer[v], iv, IterVarType.DataPar))
                values.append(v)
        return substitute(e, to_iter)

    domain = [Range(rename(r.min), rename(r.extent)) for r in domain]
    axes = [Var(f"ax{d}", "int32") for d in range(len(domain))]
    indices = tuple(r.min + ax for r, ax in zip(domain, axes))
    body = BufferStore(copy_to, copy_from[indices], indices)
    for ax, r in reversed(list(zip(axes, domain))):
        body = For(ax, const(0, "int32"), r.extent, ForKind.SERIAL, body)
    block = Block(tuple(ivs), (BufferRegion(copy_from, tuple(domain)),), (BufferRegion(copy_to, tuple(domain)),),
                  name, body, annotations={"auto_copy": 1})
    return BlockRealize(tuple(values), const(True, "bool"), block)

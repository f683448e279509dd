"""``cache_index``: precompute a block's index arithmetic into integer tables.

``cache_index(block, storage_scope, cse_thresh=0)`` looks at the index expressions of the
block's buffer accesses.  Each distinct expression that is not a plain iterator or a
constant, uses only the block's spatial iterators, and occurs at least ``cse_thresh``
times (every one when 0) gets a buffer ``index_var_<k>`` (int, in ``storage_scope``,
allocated in the scope root) indexed by the iterators it uses, filled by a block
``index_<k>`` placed before the block's loop nest; the block then reads the table instead
of computing the expression, and lists the table among its reads.

Refused: a block outside the function's root scope, and a block with nothing to cache.
TVM caches common sub-expressions chosen by its CSE pass (and, with ``cse_thresh``, parts
of value expressions too); ember caches whole index expressions.
"""

from __future__ import annotations

from ember.ir import Range, Var, const, replace
from ember.tir.buffer import BufferLoad, BufferRegion, decl_buffer
from ember.tir.functor import IRMutator, collect, substitute
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType, seq

from . import _arith
from .analysis import find_block, path_to, replace_stmts, scope_of, vars_in
from .errors import ScheduleError

__all__ = ["cache_index"]


def cache_index(func, realize: BlockRealize, storage_scope: str, cse_thresh: int = 0):
    """Returns (func, names of the new index blocks)."""
    block = realize.block
    scope = scope_of(func, realize)
    if scope is None or scope is not func.body:
        raise ScheduleError(f"cache_index: block {block.name_hint!r} is not in the function's root scope",
                            func, block=block)
    spatial = {iv.var: iv for iv in block.iter_vars if iv.iter_type == IterVarType.DataPar}
    counts: dict = {}
    order: list = []
    for node in collect(block.body, lambda n: isinstance(n, BufferLoad | BufferStore)):
        for e in node.indices:
            if isinstance(e, Var) or _arith.as_int(e) is not None or e.dtype.lanes != 1:
                continue
            used = vars_in(e)
            if not used or any(v not in spatial for v in used):
                continue
            key = _arith.expr_key(e)
            if key not in counts:
                order.append((key, e))
            counts[key] = counts.get(key, 0) + 1
    chosen = [(key, e) for key, e in order if counts[key] >= max(cse_thresh, 1)]
    if not chosen:
        raise ScheduleError(f"cache_index: block {block.name_hint!r} has no index computation to cache",
                            func, block=block)
    tables, stages, names = {}, [], []
    taken = set()
    for k, (key, e) in enumerate(chosen):
        iters = [iv for iv in block.iter_vars if any(v is iv.var for v in vars_in(e))]
        shape = tuple(iv.dom.extent for iv in iters)
        name = f"index_var_{k}"
        while name in taken:
            name += "_"
        taken.add(name)
        buf = decl_buffer(shape, e.dtype, name, scope=storage_scope)
        tables[key] = (buf, iters)
        stages.append(_fill_stage(f"index_{k}", buf, iters, e))
        names.append(f"index_{k}")
    new_block = _UseTables(tables).visit(block)
    extra = tuple(BufferRegion(buf, tuple(Range(iv.var, const(1, iv.var.dtype)) for iv in iters))
                  for buf, iters in tables.values())
    new_block = replace(new_block, reads=tuple(new_block.reads) + extra)
    path = path_to(func.body, realize) or []
    top = next((s for s in path if isinstance(s, For)), realize)
    func = replace_stmts(func, {block: new_block})
    top = _same_top(func, top, block.name_hint)
    func = replace_stmts(func, {top: seq(*stages, top)})
    root = func.body.block
    allocs = root.alloc_buffers + tuple(buf for buf, _ in tables.values())
    return replace_stmts(func, {root: replace(root, alloc_buffers=allocs)}), names


def _same_top(func, old_top, block_name: str):
    """The outermost loop (or the realize) of the block's nest after the block was replaced."""
    realize = find_block(func, block_name)
    if isinstance(old_top, BlockRealize):
        return realize
    path = path_to(func.body, realize) or []
    return next(s for s in path if isinstance(s, For))


def _fill_stage(name: str, buf, iters: list, expr):
    """``buf[v...] = expr`` over the iterators' domains, in block ``name``."""
    loop_vars = [Var(f"ax{d}", iv.var.dtype) for d, iv in enumerate(iters)]
    new_ivs = [IterVar(iv.dom, Var(f"v{d}", iv.var.dtype), IterVarType.DataPar) for d, iv in enumerate(iters)]
    value = substitute(expr, {iv.var: n.var for iv, n in zip(iters, new_ivs)})
    idx = tuple(n.var for n in new_ivs)
    region = BufferRegion(buf, tuple(Range(v, const(1, v.dtype)) for v in idx))
    block = Block(tuple(new_ivs), (), (region,), name, BufferStore(buf, value, idx))
    body = BlockRealize(tuple(loop_vars), const(True, "bool"), block)
    for var, iv in reversed(list(zip(loop_vars, iters))):
        body = For(var, iv.dom.min, iv.dom.extent, ForKind.SERIAL, body)
    return body


class _UseTables(IRMutator):
    """Replace each cached index expression by a load of its table."""

    def __init__(self, tables: dict):
        super().__init__()
        self.tables = tables

    def _indices(self, indices):
        out = []
        for e in indices:
            hit = self.tables.get(_arith.expr_key(e)) if not isinstance(e, Var) else None
            if hit is None:
                out.append(e)
            else:
                buf, iters = hit
                out.append(BufferLoad(buf, tuple(iv.var for iv in iters)))
        return tuple(out)

    def visit_BufferLoad(self, load):  # noqa: N802
        load = self.generic_visit(load)
        return replace(load, indices=self._indices(load.indices))

    def visit_BufferStore(self, store):  # noqa: N802
        store = self.generic_visit(store)
        return replace(store, indices=self._indices(store.indices))

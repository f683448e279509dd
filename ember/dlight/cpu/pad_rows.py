"""Pad a matmul's symbolic row count up to a multiple of the register tile's rows.

With ``M`` symbolic, splitting rows into tiles of ``MR`` leaves a predicate
``i_0 * MR + i_1 < M`` on every multiply-add, which costs a branch per vector FMA.
Instead the matmul block computes ``ceil(M / MR) * MR`` rows into a padded intermediate,
reading A's row ``min(i, M - 1)`` (the extra rows repeat the last one and are never
read), and the blocks after it read the first ``M`` rows as before; only those
consumers keep a row predicate, once per output element.  The result is unchanged.
"""

from __future__ import annotations

from ember.ir import Min, Range, const, replace
from ember.tir import (
    Block, BlockRealize, BufferLoad, BufferStore, For, ForKind, IterVar, IterVarType, PrimFunc, SeqStmt, Var,
    ir_transform,
)
from ember.tir.analysis import complete_block_access
from ember.tir.buffer import decl_buffer
from ember.tir.functor import substitute


def _find(func: PrimFunc, name: str) -> BlockRealize:
    found: list = []
    ir_transform(func.body, None, lambda n: found.append(n) if isinstance(n, BlockRealize)
                 and n.block.name_hint == name else None, ["BlockRealize"])
    return found[0]


def pad_rows(func: PrimFunc, block_name: str, row: int, multiple: int) -> PrimFunc | None:
    """``func`` with block ``block_name``'s row iterator (position ``row``) padded to a
    multiple of ``multiple``; None when the block's shape does not allow it."""
    realize = _find(func, block_name)
    block = realize.block
    iv = block.iter_vars[row]
    loop_var = realize.iter_values[row]
    if not isinstance(loop_var, Var) or iv.dom is None:
        return None
    out = block.writes[0].buffer
    stores = [n for n in _collect(block.body, BufferStore) if n.buffer is out]
    if len(stores) != 1 or sum(1 for i in stores[0].indices if i is iv.var) != 1:
        return None
    dim = next(d for d, i in enumerate(stores[0].indices) if i is iv.var)
    n = iv.dom.extent
    padded = (n + (multiple - 1)) // multiple * multiple
    shape = tuple(padded if d == dim else s for d, s in enumerate(out.shape))
    new_out = decl_buffer(shape, out.dtype, out.name + "_pad", scope=out.scope())
    last_row = Min(iv.var, n - 1)

    def in_block(node):
        if isinstance(node, BufferLoad) and node.buffer is not out:
            return replace(node, indices=tuple(substitute(i, {iv.var: last_row}) for i in node.indices))
        return None

    body = ir_transform(block.body, None, in_block, ["BufferLoad"])
    new_iv = replace(iv, dom=Range(iv.dom.min, padded))
    block = replace(block, body=body, iter_vars=tuple(new_iv if v is iv else v for v in block.iter_vars))
    target = block

    def swap(node):
        if isinstance(node, BufferLoad | BufferStore) and node.buffer is out:
            return replace(node, buffer=new_out)
        if isinstance(node, For) and node.loop_var is loop_var:
            return replace(node, extent=padded)
        if isinstance(node, BlockRealize) and node.block.name_hint == block_name:
            return replace(node, block=_rebind(target, out, new_out))
        if isinstance(node, Block):
            allocs = tuple(new_out if b is out else b for b in node.alloc_buffers)
            touched = any(r.buffer is out for r in node.reads + node.writes)
            if touched:
                node = complete_block_access(replace(node, alloc_buffers=allocs))
            elif allocs != node.alloc_buffers:
                node = replace(node, alloc_buffers=allocs)
            return node
        return None

    is_param = any(b is out for b in func.buffer_map.values())
    if is_param:  # the output is a parameter: the padded rows go to a new intermediate
        new_out = decl_buffer(shape, out.dtype, out.name + "_pad")
    body = ir_transform(func.body, None, swap, ["BufferLoad", "BufferStore", "For", "BlockRealize", "Block"])
    if is_param:
        root = body.block
        copy = _copy_nest(new_out, out)
        inner = SeqStmt(tuple(root.body.seq) + (copy,)) if isinstance(root.body, SeqStmt) else SeqStmt((root.body, copy))
        body = replace(body, block=replace(root, body=inner, alloc_buffers=root.alloc_buffers + (new_out,)))
    return replace(func, body=body)


def _copy_nest(src, dst) -> For:
    """``dst[v...] = src[v...]`` over ``dst``'s shape, one loop per dimension."""
    loops = [Var(f"ax{d}", s.dtype) for d, s in enumerate(dst.shape)]
    ivs = [IterVar(Range(const(0, s.dtype), s), Var(f"v{d}", s.dtype), IterVarType.DataPar)
           for d, s in enumerate(dst.shape)]
    vs = tuple(iv.var for iv in ivs)
    block = Block(tuple(ivs), (), (), dst.name + "_copy", BufferStore(dst, BufferLoad(src, vs), vs))
    stmt = BlockRealize(tuple(loops), const(True, "bool"), complete_block_access(block))
    for lv, s in reversed(list(zip(loops, dst.shape))):
        stmt = For(lv, const(0, s.dtype), s, ForKind.SERIAL, stmt)
    return stmt


def _rebind(block: Block, out, new_out) -> Block:
    def swap(node):
        if isinstance(node, BufferLoad | BufferStore) and node.buffer is out:
            return replace(node, buffer=new_out)
        return None

    body = ir_transform(block.body, None, swap, ["BufferLoad", "BufferStore"])
    init = ir_transform(block.init, None, swap, ["BufferLoad", "BufferStore"]) if block.init is not None else None
    return complete_block_access(replace(block, body=body, init=init))


def _collect(stmt, cls) -> list:
    found: list = []
    ir_transform(stmt, None, lambda n: found.append(n) if isinstance(n, cls) else None, [cls.__name__])
    return found

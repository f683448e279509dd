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


def pad_rows(func: PrimFunc, block_name: str, row: int, multiple: int,
             copy_operands: bool = False) -> PrimFunc | None:
    """``func`` with block ``block_name``'s row iterator (position ``row``) padded to a
    multiple of ``multiple``; None when the block's shape does not allow it.

    ``copy_operands``: an operand indexed by the iterator in one dimension (a column of B)
    is read through a padded copy made by a block of its own, named ``<operand>_padcopy``
    (``copy[.., j, ..] = operand[.., min(j, n - 1), ..]``), which a schedule can place per
    tile; otherwise the clamp is in the block's own loads."""
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

    copies: dict = {}  # operand buffer -> (padded copy, dimension)
    if copy_operands:
        for load in _collect(block.body, BufferLoad):
            uses = [d for d, i in enumerate(load.indices) if _uses(i, iv.var)]
            if load.buffer is out or len(uses) != 1 or load.indices[uses[0]] is not iv.var:
                continue
            d = uses[0]
            if load.buffer in copies and copies[load.buffer][1] != d:
                return None
            src = load.buffer
            copies[src] = (decl_buffer(tuple(padded if k == d else x for k, x in enumerate(src.shape)),
                                       src.dtype, src.name + "_padcopy"), d)

    def in_block(node):
        if isinstance(node, BufferLoad) and node.buffer in copies:
            return replace(node, buffer=copies[node.buffer][0])
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
    if copies:
        root = body.block
        nests = tuple(_copy_nest(src, dst, clamp=(d, n)) for src, (dst, d) in copies.items())
        inner = nests + (tuple(root.body.seq) if isinstance(root.body, SeqStmt) else (root.body,))
        body = replace(body, block=replace(root, body=SeqStmt(inner), alloc_buffers=root.alloc_buffers
                                           + tuple(dst for dst, _ in copies.values())))
    if is_param:
        root = body.block
        copy = _copy_nest(new_out, out)
        inner = SeqStmt(tuple(root.body.seq) + (copy,)) if isinstance(root.body, SeqStmt) else SeqStmt((root.body, copy))
        body = replace(body, block=replace(root, body=inner, alloc_buffers=root.alloc_buffers + (new_out,)))
    return replace(func, body=body)


def _copy_nest(src, dst, clamp=None) -> For:
    """``dst[v...] = src[v...]`` over ``dst``'s shape, one loop per dimension; ``clamp``
    ``(d, n)`` reads dimension ``d`` at ``min(v_d, n - 1)`` (a padded copy)."""
    loops = [Var(f"ax{d}", s.dtype) for d, s in enumerate(dst.shape)]
    ivs = [IterVar(Range(const(0, s.dtype), s), Var(f"v{d}", s.dtype), IterVarType.DataPar)
           for d, s in enumerate(dst.shape)]
    vs = tuple(iv.var for iv in ivs)
    read = vs if clamp is None else tuple(Min(v, clamp[1] - 1) if d == clamp[0] else v for d, v in enumerate(vs))
    name = dst.name if clamp is not None else dst.name + "_copy"
    block = Block(tuple(ivs), (), (), name, BufferStore(dst, BufferLoad(src, read), vs))
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


def _uses(expr, var) -> bool:
    from ember.tir.functor import collect

    return bool(collect(expr, lambda n: n is var))

"""LowerInitBlock: a block's ``init`` becomes a guarded statement before its body.

``init`` runs when every reduction iterator of the block is at the start of its
domain, so ``Block(init=I, body=B)`` becomes ``Block(body={if (k == k_min && …) I; B})``.
A block without reduction iterators runs its init unconditionally.

That guard never fires when a reduction domain is empty (a symbolic extent that is 0
at run time): the block does not run at all, yet its output must still hold the
init value.  So for a reduction block whose reduction extents are not all known
positive, the statement of its parent's body that contains it is preceded by
``if (any reduction extent <= 0) for spatial iterators: I`` (the init over the block's
whole spatial domain).  Assumes blocks still carry their iterators (run before
ConvertBlocksToOpaque).
"""

from __future__ import annotations

from ember.ir import IntImm, Or, Var, replace
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator, substitute
from ..op import all as all_of
from ..stmt import Block, BlockRealize, For, ForKind, IfThenElse, IterVarType, SeqStmt, seq
from ._common import make_pass

__all__ = ["lower_init_block", "LowerInitBlock", "init_empty_reductions"]


def _reduce_iters(block: Block):
    return [iv for iv in block.iter_vars if iv.iter_type == IterVarType.CommReduce]


def _may_be_empty(block: Block) -> bool:
    return block.init is not None and any(
        not (isinstance(iv.dom.extent, IntImm) and iv.dom.extent.value > 0) for iv in _reduce_iters(block)
    )


def _init_when_empty(block: Block):
    """``if (some reduction extent <= 0) { init over the whole spatial domain }``."""
    empty = None
    for iv in _reduce_iters(block):
        if not isinstance(iv.dom.extent, IntImm):
            cond = iv.dom.extent <= IntImm(iv.dom.extent.dtype, 0)
            empty = cond if empty is None else Or(empty, cond)
    spatial = [iv for iv in block.iter_vars if iv.iter_type == IterVarType.DataPar]
    fresh = {iv.var: Var(iv.var.name, iv.var.dtype) for iv in spatial}
    body = substitute(block.init, fresh)
    for iv in reversed(spatial):
        body = For(fresh[iv.var], iv.dom.min, iv.dom.extent, ForKind.SERIAL, body)
    return IfThenElse(empty, body)


def _child_blocks(stmt) -> list[Block]:
    """Blocks directly in ``stmt`` (not nested in another block)."""
    found: list[Block] = []

    def walk(node):
        if isinstance(node, BlockRealize):
            found.append(node.block)
        elif isinstance(node, SeqStmt):
            for s in node.seq:
                walk(s)
        elif isinstance(node, For):
            walk(node.body)
        elif isinstance(node, IfThenElse):
            walk(node.then_case)
            if node.else_case is not None:
                walk(node.else_case)
        elif hasattr(node, "body") and not isinstance(node, Block):
            walk(node.body)

    walk(stmt)
    return found


def _guard_empty_reductions(body):
    """Precede each statement of ``body`` by the empty-domain inits of the blocks it holds."""
    stmts = list(body.seq) if isinstance(body, SeqStmt) else [body]
    out, changed = [], False
    for stmt in stmts:
        for child in _child_blocks(stmt):
            if _may_be_empty(child):
                out.append(_init_when_empty(child))
                changed = True
        out.append(stmt)
    return seq(*out) if changed else body


class _EmptyReductionGuard(IRMutator):
    def visit_Block(self, block: Block):
        guarded = _guard_empty_reductions(block.body)
        if guarded is not block.body:
            block = replace(block, body=guarded)
        return self.generic_visit(block)


def init_empty_reductions(body):
    """``body`` with the empty-reduction inits added (blocks keep their ``init``): for
    executors of block TIR, such as the reference interpreter."""
    if not isinstance(body, BlockRealize):
        body = _guard_empty_reductions(body)
    return _EmptyReductionGuard().visit(body)


class _InitLowerer(IRMutator):
    def visit_Block(self, block: Block):
        guarded = _guard_empty_reductions(block.body)
        if guarded is not block.body:
            block = replace(block, body=guarded)
        block = self.generic_visit(block)
        if block.init is None:
            return block
        conds = [iv.var == iv.dom.min for iv in _reduce_iters(block)]
        init = block.init if not conds else IfThenElse(all_of(*conds), block.init)
        return replace(block, init=None, body=seq(init, block.body))


def lower_init_block(func: PrimFunc) -> PrimFunc:
    """Rewrite every block ``init`` of ``func`` into a guarded statement."""
    body = func.body
    if not isinstance(body, BlockRealize):  # blocks straight in the function body
        body = _guard_empty_reductions(body)
    return func.with_body(_InitLowerer().visit(body))


def LowerInitBlock() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`lower_init_block`."""
    return make_pass(lower_init_block, "tir.LowerInitBlock")

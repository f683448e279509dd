"""LowerInitBlock: a block's ``init`` becomes a guarded statement before its body.

``init`` runs when every reduction iterator of the block is at the start of its
domain, so ``Block(init=I, body=B)`` becomes ``Block(body={if (k == k_min && …) I; B})``.
A block without reduction iterators runs its init unconditionally.  Assumes blocks
still carry their iterators (run before ConvertBlocksToOpaque).
"""

from __future__ import annotations

from ember.ir import replace
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator
from ..op import all as all_of
from ..stmt import Block, IfThenElse, IterVarType, seq
from ._common import make_pass

__all__ = ["lower_init_block", "LowerInitBlock"]


class _InitLowerer(IRMutator):
    def visit_Block(self, block: Block):
        block = self.generic_visit(block)
        if block.init is None:
            return block
        conds = [
            iv.var == iv.dom.min
            for iv in block.iter_vars
            if iv.iter_type == IterVarType.CommReduce
        ]
        init = block.init if not conds else IfThenElse(all_of(*conds), block.init)
        return replace(block, init=None, body=seq(init, block.body))


def lower_init_block(func: PrimFunc) -> PrimFunc:
    """Rewrite every block ``init`` of ``func`` into a guarded statement."""
    return func.with_body(_InitLowerer().visit(func.body))


def LowerInitBlock() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`lower_init_block`."""
    return make_pass(lower_init_block, "tir.LowerInitBlock")

"""ConvertBlocksToOpaque: substitute block iterators by the values they are bound to.

Every ``BlockRealize(iter_values, predicate, Block(iter_vars, …))`` becomes an
*opaque* block realize — no iterators, no iter values — whose body, init, read/write
regions and match-buffer sources use the bound values (loop expressions) instead of
the block iterators.  Predicates, allocations and annotations are kept for
LowerOpaqueBlock.  Nested blocks are handled outside-in, so an inner block's iter
values may mention outer block iterators.
"""

from __future__ import annotations

from ember.ir import replace
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator, collect, substitute
from ..stmt import BlockRealize
from ._common import TransformError, make_pass

__all__ = ["convert_blocks_to_opaque", "ConvertBlocksToOpaque"]


class _Opaquer(IRMutator):
    def visit_BlockRealize(self, realize: BlockRealize):
        block = realize.block
        if block.iter_vars:
            if len(block.iter_vars) != len(realize.iter_values):
                raise TransformError(
                    f"block {block.name_hint!r}: expected one iter value per block iterator "
                    f"({len(block.iter_vars)}), got {len(realize.iter_values)}"
                )
            vmap = {iv.var: value for iv, value in zip(block.iter_vars, realize.iter_values)}
            own = [v.name for v in collect(realize.predicate, lambda x: x in vmap)]
            if own:  # the predicate lives outside the block, where its iterators are unbound
                raise TransformError(
                    f"block {block.name_hint!r}: its predicate uses the block's own iterators "
                    f"{own}; write it with the loop variables instead")
            block = substitute(replace(block, iter_vars=()), vmap)
        block = self.visit(block)
        predicate = self.visit(realize.predicate)
        return replace(realize, iter_values=(), predicate=predicate, block=block)


def convert_blocks_to_opaque(func: PrimFunc) -> PrimFunc:
    """Substitute every block iterator of ``func`` by its bound value."""
    return func.with_body(_Opaquer().visit(func.body))


def ConvertBlocksToOpaque() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`convert_blocks_to_opaque`."""
    return make_pass(convert_blocks_to_opaque, "tir.ConvertBlocksToOpaque")

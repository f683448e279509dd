"""ConvertBlocksToOpaque: substitute block iterators by the values they are bound to.

Every ``BlockRealize(iter_values, predicate, Block(iter_vars, …))`` becomes an
*opaque* block realize — no iterators, no iter values — whose body, init, read/write
regions and match-buffer sources use the bound values (loop expressions) instead of
the block iterators.  Predicates, allocations and annotations are kept for
LowerOpaqueBlock.  Nested blocks are handled outside-in, so an inner block's iter
values may mention outer block iterators.

The loops that *opaque* iterators (``T.axis.opaque``, e.g. a rolling buffer's axis) are
bound through carry values of the block's buffers from one iteration to the next; they
are kept in the block annotation ``CARRIED_LOOPS`` so that CompactBufferAllocation does
not move those buffers into such a loop.
"""

from __future__ import annotations

from ember.ir import Var, replace
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator, collect, substitute
from ..stmt import BlockRealize, IterVarType
from ._common import TransformError, make_pass

__all__ = ["convert_blocks_to_opaque", "ConvertBlocksToOpaque", "CARRIED_LOOPS"]

CARRIED_LOOPS = "ember.carried_loops"


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
            carried = [v for iv, value in zip(block.iter_vars, realize.iter_values)
                       if iv.iter_type == IterVarType.Opaque for v in collect(value, lambda x: isinstance(x, Var))]
            if carried:
                annotations = {**block.annotations, CARRIED_LOOPS: tuple(dict.fromkeys(carried))}
                block = replace(block, annotations=annotations)
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

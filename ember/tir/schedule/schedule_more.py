"""The Schedule methods of the compute-location, reduction, memory, layout, tensorize
and sampling families (a mixin of ``Schedule``; kept apart so each file stays short).

The methods follow ``schedule.py``'s pattern: resolve handles, call the pure primitive
through ``self._apply``, make output handles, record one instruction.
"""

from __future__ import annotations

from .state import BlockRV, ExprRV, LoopRV  # noqa: F401

__all__ = ["MorePrimitives"]


class MorePrimitives:
    """Mixin: needs ``_apply``, ``_block``, ``_loop``, ``_new``, ``_record`` from Schedule."""

    # -- compute location -------------------------------------------------------------------
    def compute_inline(self, block: BlockRV) -> None:
        from .compute_inline import compute_inline

        self._apply(block, compute_inline, self._block(block))
        self._record("compute_inline", [block], [], [])

    def reverse_compute_inline(self, block: BlockRV) -> None:
        from .compute_inline import reverse_compute_inline

        self._apply(block, reverse_compute_inline, self._block(block))
        self._record("reverse_compute_inline", [block], [], [])

    def _location(self, loop: LoopRV):
        key = self._key(loop, LoopRV)[1]
        return key if isinstance(key, str) else None

    def compute_at(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool = False,
                   index: int = -1) -> None:
        from .compute_location import compute_at
        from .state import INLINE

        special = self._location(loop)
        if special == INLINE:
            return self.compute_inline(block)
        if special is None:
            self._apply(block, compute_at, self._block(block), self._loop(loop), preserve_unit_loops, index)
        self._record("compute_at", [block, loop], [preserve_unit_loops, index], [])

    def reverse_compute_at(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool = False,
                           index: int = -1) -> None:
        from .compute_location import reverse_compute_at
        from .state import INLINE

        special = self._location(loop)
        if special == INLINE:
            return self.reverse_compute_inline(block)
        if special is None:
            self._apply(block, reverse_compute_at, self._block(block), self._loop(loop),
                        preserve_unit_loops, index)
        self._record("reverse_compute_at", [block, loop], [preserve_unit_loops, index], [])

    # -- reductions --------------------------------------------------------------------------
    def decompose_reduction(self, block: BlockRV, loop: LoopRV) -> BlockRV:
        from .reduction import decompose_reduction

        name = self._block(block).block.name_hint
        fname, init_name = self._apply(block, decompose_reduction, self._block(block), self._loop(loop))
        self._rename_block(fname, name, name + "_update")
        rv = self._new(BlockRV, (fname, init_name))
        self._record("decompose_reduction", [block, loop], [], [rv])
        return rv

    def rfactor(self, loop: LoopRV, factor_axis: int) -> BlockRV:
        from .reduction import rfactor

        fname, rf_name = self._apply(loop, rfactor, self._loop(loop), factor_axis)
        rv = self._new(BlockRV, (fname, rf_name))
        self._record("rfactor", [loop], [factor_axis], [rv])
        return rv

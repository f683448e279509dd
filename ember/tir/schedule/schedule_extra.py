"""The Schedule methods of loop_partition, rolling_buffer, decompose_padding, pad_einsum,
read_at / write_at and cache_index (a mixin of ``Schedule``, as ``schedule_more.py``).

The methods follow ``schedule.py``'s pattern: resolve handles, call the pure primitive
through ``self._apply``, make output handles, record one instruction.
"""

from __future__ import annotations

from .state import BlockRV, LoopRV

__all__ = ["ExtraPrimitives"]


class ExtraPrimitives:
    """Mixin: needs ``_apply``, ``_block``, ``_loop``, ``_new``, ``_record`` from Schedule."""

    def loop_partition(self, loop: LoopRV, factors, preserve_unit_iters: bool = True) -> list[LoopRV]:
        """Cut ``loop`` into consecutive loops of lengths ``factors`` (see loop_partition.py)."""
        from .loop_partition import loop_partition

        factors = list(factors)
        values = [None if f is None else self._int(f) for f in factors]
        fname, new_vars = self._apply(loop, loop_partition, self._loop(loop), values)
        rvs = [self._new(LoopRV, (fname, v)) for v in new_vars]
        self._record("loop_partition", [loop, factors], [preserve_unit_iters], rvs)
        return rvs

    def rolling_buffer(self, block: BlockRV, write_buffer_index: int) -> None:
        """Shrink an intermediate buffer to a window rolling along one axis (see rolling_buffer.py)."""
        from .rolling_buffer import rolling_buffer

        write_buffer_index = self._buffer_index(block, write_buffer_index, "write")
        self._apply(block, rolling_buffer, self._block(block), write_buffer_index)
        self._record("rolling_buffer", [block], [write_buffer_index], [])

    def decompose_padding(self, block: BlockRV, loop: LoopRV) -> BlockRV:
        """Split a padding block into a pad-value fill before ``loop`` and an in-bound copy."""
        from .decompose_padding import decompose_padding

        fname, name = self._apply(block, decompose_padding, self._block(block), self._loop(loop))
        rv = self._new(BlockRV, (fname, name))
        self._record("decompose_padding", [block, loop], [], [rv])
        return rv

    def can_decompose_padding(self, block: BlockRV, loop: LoopRV) -> bool:
        """Whether ``decompose_padding(block, loop)`` would succeed (nothing is changed)."""
        from .decompose_padding import can_decompose_padding

        fname = self._fname(block)
        return can_decompose_padding(self._func(fname), self._block(block), self._loop(loop))

    def read_at(self, loop: LoopRV, block: BlockRV, read_buffer_index: int, storage_scope: str) -> BlockRV:
        """Copy what ``loop``'s body reads of a buffer into ``storage_scope`` inside the loop."""
        return self._read_write_at("read_at", loop, block, read_buffer_index, storage_scope)

    def write_at(self, loop: LoopRV, block: BlockRV, write_buffer_index: int, storage_scope: str) -> BlockRV:
        """Write a buffer through ``storage_scope`` inside ``loop``, copied back at its end."""
        return self._read_write_at("write_at", loop, block, write_buffer_index, storage_scope)

    def _read_write_at(self, what, loop, block, buffer_index, storage_scope):
        from . import read_write_at

        buffer_index = self._buffer_index(block, buffer_index, "read" if what == "read_at" else "write")
        fname, name = self._apply(loop, getattr(read_write_at, what), self._loop(loop), self._block(block),
                                  buffer_index, storage_scope)
        rv = self._new(BlockRV, (fname, name))
        self._record(what, [loop, block], [buffer_index, storage_scope], [rv])
        return rv

    def pad_einsum(self, block: BlockRV, padding) -> None:
        """Round an einsum block's iteration space up to multiples of ``padding`` (see pad_einsum.py)."""
        from .pad_einsum import pad_einsum

        padding = [int(self._int(p)) for p in padding]
        self._apply(block, pad_einsum, self._block(block), padding)
        self._record("pad_einsum", [block], [padding], [])

    def cache_index(self, block: BlockRV, storage_scope: str, cse_thresh: int = 0) -> list[BlockRV]:
        """Precompute the block's index expressions into tables (see cache_index.py)."""
        from .cache_index import cache_index

        fname, names = self._apply(block, cache_index, self._block(block), storage_scope, int(cse_thresh))
        rvs = [self._new(BlockRV, (fname, name)) for name in names]
        self._record("cache_index", [block], [storage_scope, int(cse_thresh)], rvs)
        return rvs

"""The Schedule methods of the compute-location, reduction, memory, layout, tensorize
and sampling families (a mixin of ``Schedule``; kept apart so each file stays short).

The methods follow ``schedule.py``'s pattern: resolve handles, call the pure primitive
through ``self._apply``, make output handles, record one instruction.
"""

from __future__ import annotations

from .errors import ScheduleError
from .state import BlockRV, ExprRV, LoopRV

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
        fname, (init_name, update_name) = self._apply(block, decompose_reduction, self._block(block),
                                                      self._loop(loop))
        self._rename_block(fname, name, update_name)
        rv = self._new(BlockRV, (fname, init_name))
        self._record("decompose_reduction", [block, loop], [], [rv])
        return rv

    def rfactor(self, loop: LoopRV, factor_axis: int) -> BlockRV:
        from .reduction import rfactor

        fname, rf_name = self._apply(loop, rfactor, self._loop(loop), factor_axis)
        rv = self._new(BlockRV, (fname, rf_name))
        self._record("rfactor", [loop], [factor_axis], [rv])
        return rv

    # -- sampling ----------------------------------------------------------------------------
    def sample_perfect_tile(self, loop: LoopRV, n: int, max_innermost_factor: int = 16,
                            decision=None) -> list[ExprRV]:
        from . import _arith
        from .sampling import sample_perfect_tile

        fname = self._fname(loop)
        extent = _arith.as_int(self._loop(loop).extent)
        try:
            values = sample_perfect_tile(self._rng, extent, n, max_innermost_factor, decision)
        except ScheduleError as err:
            self._raise(err)
        rvs = [None if v == -1 else self._new(ExprRV, v) for v in values]  # -1: the split infers it
        self._record("sample_perfect_tile", [loop], [n, max_innermost_factor], rvs, list(values))
        del fname
        return rvs

    def sample_categorical(self, candidates, probs, decision=None) -> ExprRV:
        from .sampling import sample_categorical

        candidates = [int(c) for c in candidates]
        probs = [float(p) for p in probs]
        try:
            index = sample_categorical(self._rng, candidates, probs, decision)
        except ScheduleError as err:
            self._raise(err)
        rv = self._new(ExprRV, candidates[index])
        self._record("sample_categorical", [], [candidates, probs], [rv], index)
        return rv

    def sample_compute_location(self, block: BlockRV, decision=None) -> LoopRV:
        """A location for ``compute_at``: inline (decision -2, when legal), root (-1) or one of
        the first consumer's loops (its position among them), as TVM.  A replayed decision
        that is no longer a candidate falls back to the nearest candidate outside it."""
        from .sampling import compute_location_candidates, inline_is_legal
        from .state import INLINE, ROOT

        fname = self._fname(block)
        func, realize = self._func(fname), self._block(block)
        given = None if decision is None else int(decision)
        loops = compute_location_candidates(func, realize, given if given is not None and given >= 0 else None)
        special = [-1] if given is not None and given >= -1 else ([-2, -1] if inline_is_legal(func, realize) else [-1])
        choices = [(d, None) for d in special] + loops
        if given is None:
            decision, loop = choices[self._rng.randrange(len(choices))]
        else:
            earlier = [c for c in choices if c[0] <= given]
            decision, loop = earlier[-1] if earlier else (-1, None)
        key = {-2: INLINE, -1: ROOT}.get(decision) or loop.loop_var
        rv = self._new(LoopRV, (fname, key))
        self._record("sample_compute_location", [block], [], [rv], decision)
        return rv

    # -- memory ------------------------------------------------------------------------------
    def _buffer_arg(self, block: BlockRV, buffer, required: str | None = None):
        """``(kind, index)`` of a buffer given as an index, ``(kind, index)``, a name or a Buffer.

        A name or Buffer the block both reads and writes means the write (TVM's rule)."""
        if isinstance(buffer, list):
            buffer = tuple(buffer)
        if isinstance(buffer, int) and required is not None:
            return required, buffer
        if not isinstance(buffer, str) and not (hasattr(buffer, "shape") and hasattr(buffer, "data")):
            return buffer
        realize = self._block(block)
        found = {}
        for kind, regions in (("read", realize.block.reads), ("write", realize.block.writes)):
            for k, region in enumerate(regions):
                if region.buffer is buffer or isinstance(buffer, str) and region.buffer.name == buffer:
                    found[id(region.buffer)] = (kind, k)
        name = buffer if isinstance(buffer, str) else buffer.name
        if len(found) != 1:
            what = "no buffer" if not found else "several buffers"
            self._raise(ScheduleError(f"block {realize.block.name_hint!r} accesses {what} named {name!r}",
                                      self._func(self._fname(block)), block=realize.block))
        kind, index = next(iter(found.values()))
        if required is not None and kind != required:
            self._raise(ScheduleError(f"buffer {name!r} is a {kind} buffer of block "
                                      f"{realize.block.name_hint!r}, expected a {required} buffer",
                                      self._func(self._fname(block)), block=realize.block))
        return kind, index

    def _buffer_index(self, block: BlockRV, buffer, required: str):
        arg = self._buffer_arg(block, buffer, required)
        return arg[1] if isinstance(arg, tuple) and len(arg) == 2 and arg[0] == required else buffer

    def cache_read(self, block: BlockRV, read_buffer_index: int, storage_scope: str,
                   consumer_blocks=None) -> BlockRV:
        from .cache_stage import cache_read

        read_buffer_index = self._buffer_index(block, read_buffer_index, "read")
        consumers = None if consumer_blocks is None else [self._block(b) for b in consumer_blocks]
        fname, name = self._apply(block, cache_read, self._block(block), read_buffer_index, storage_scope,
                                  consumers)
        rv = self._new(BlockRV, (fname, name))
        self._record("cache_read", [block, None if consumer_blocks is None else list(consumer_blocks)], [read_buffer_index, storage_scope],
                     [rv])
        return rv

    def cache_write(self, block: BlockRV, write_buffer_index: int, storage_scope: str,
                    consumer_blocks=None) -> BlockRV:
        from .cache_stage import cache_write

        write_buffer_index = self._buffer_index(block, write_buffer_index, "write")
        consumers = None if consumer_blocks is None else [self._block(b) for b in consumer_blocks]
        fname, name = self._apply(block, cache_write, self._block(block), write_buffer_index, storage_scope,
                                  consumers)
        rv = self._new(BlockRV, (fname, name))
        self._record("cache_write", [block, None if consumer_blocks is None else list(consumer_blocks)],
                     [write_buffer_index, storage_scope], [rv])
        return rv

    def cache_inplace(self, block: BlockRV, read_buffer_index: int, storage_scope: str) -> list[BlockRV]:
        """The block (reading and writing the buffer in place) works on a copy in
        ``storage_scope``: returns the copy-in and the copy-back stages."""
        from .cache_stage import cache_inplace

        read_buffer_index = self._buffer_index(block, read_buffer_index, "read")
        fname, names = self._apply(block, cache_inplace, self._block(block), read_buffer_index, storage_scope)
        rvs = [self._new(BlockRV, (fname, n)) for n in names]
        self._record("cache_inplace", [block], [read_buffer_index, storage_scope], rvs)
        return rvs

    def _reindex_cache(self, fn_name: str, block: BlockRV, buffer_index: int, storage_scope: str,
                       index_map) -> BlockRV:
        from . import reindex_cache
        from .index_map import IndexMap

        kind = "read" if fn_name.endswith("read") else "write"
        buffer_index = self._buffer_index(block, buffer_index, kind)
        realize = self._block(block)
        if not isinstance(index_map, IndexMap):
            index_map = IndexMap.from_func(index_map, ndim=len(realize.block.iter_vars))
        fname, name = self._apply(block, getattr(reindex_cache, fn_name), realize, buffer_index, storage_scope,
                                  index_map)
        rv = self._new(BlockRV, (fname, name))
        self._record(fn_name, [block], [buffer_index, storage_scope, index_map], [rv])
        return rv

    def reindex_cache_read(self, block: BlockRV, read_buffer_index: int, storage_scope: str,
                           index_map) -> BlockRV:
        """A copy of the buffer the block reads at one point, laid out by ``index_map`` of the
        block's iterators (see reindex_cache.py)."""
        return self._reindex_cache("reindex_cache_read", block, read_buffer_index, storage_scope, index_map)

    def reindex_cache_write(self, block: BlockRV, write_buffer_index: int, storage_scope: str,
                            index_map) -> BlockRV:
        """The block writes a copy laid out by ``index_map`` of its iterators; a stage writes it back."""
        return self._reindex_cache("reindex_cache_write", block, write_buffer_index, storage_scope, index_map)

    def reindex(self, block: BlockRV, buffer) -> BlockRV:
        from .cache import reindex

        buffer = self._buffer_arg(block, buffer)
        fname, name = self._apply(block, reindex, self._block(block), buffer)
        rv = self._new(BlockRV, (fname, name))
        self._record("reindex", [block], [buffer], [rv])
        return rv

    def set_scope(self, block: BlockRV, buffer_index: int, storage_scope: str) -> None:
        from .cache import set_scope

        buffer_index = self._buffer_index(block, buffer_index, "write")
        self._apply(block, set_scope, self._block(block), buffer_index, storage_scope)
        self._record("set_scope", [block], [buffer_index, storage_scope], [])

    def storage_align(self, block: BlockRV, buffer_index: int, axis: int, factor: int, offset: int) -> None:
        from .cache import storage_align

        buffer_index = self._buffer_index(block, buffer_index, "write")
        self._apply(block, storage_align, self._block(block), buffer_index, axis, factor, offset)
        self._record("storage_align", [block], [buffer_index, axis, factor, offset], [])

    def unsafe_set_dtype(self, block: BlockRV, buffer_index: int, dtype: str) -> None:
        from .block_edit import unsafe_set_dtype

        buffer_index = self._buffer_index(block, buffer_index, "write")
        self._apply(block, unsafe_set_dtype, self._block(block), buffer_index, dtype)
        self._record("unsafe_set_dtype", [block], [buffer_index, str(dtype)], [])

    def unsafe_hide_buffer_access(self, block: BlockRV, buf_type: str, buf_index_array) -> None:
        """Hide some read or write regions of a block from dependence analysis (see block_edit)."""
        from .block_edit import unsafe_hide_buffer_access

        indices = [int(i) for i in buf_index_array]
        self._apply(block, unsafe_hide_buffer_access, self._block(block), buf_type, indices)
        self._record("unsafe_hide_buffer_access", [block], [buf_type, indices], [])

    def annotate_buffer_access(self, block: BlockRV, buffer_index: int, buf_type: str,
                               gen_new_ranges) -> None:
        """Declare the region of a read/write buffer from the block iterators (see block_edit)."""
        from .block_edit import annotate_buffer_access, range_pairs
        from .index_map import IndexMap

        block_node = self.get(block)
        regions = block_node.reads if buf_type == "read" else block_node.writes
        ndim = len(regions[buffer_index].buffer.shape) if isinstance(buffer_index, int) \
            and 0 <= buffer_index < len(regions) else 0
        index_map = gen_new_ranges if isinstance(gen_new_ranges, IndexMap) else IndexMap.from_func(
            lambda *vs: range_pairs(gen_new_ranges(*vs), ndim), ndim=len(block_node.iter_vars))
        self._apply(block, annotate_buffer_access, self._block(block), buffer_index, buf_type, index_map)
        self._record("annotate_buffer_access", [block], [buffer_index, buf_type, index_map], [])

    def reorder_block_iter_var(self, block: BlockRV, new_order) -> None:
        from .block_edit import reorder_block_iter_var

        new_order = [int(k) for k in new_order]
        self._apply(block, reorder_block_iter_var, self._block(block), new_order)
        self._record("reorder_block_iter_var", [block], [new_order], [])

    # -- layout -------------------------------------------------------------------------------
    def transform_layout(self, block: BlockRV, buffer, index_map, pad_value=None, *,
                         assume_injective_transform: bool = False) -> None:
        from .index_map import IndexMap
        from .layout import transform_layout

        realize = self._block(block)
        separators: list = []
        if not isinstance(index_map, IndexMap):
            from .layout import resolve_buffer

            try:
                buf = resolve_buffer(self._func(self._fname(block)), realize.block, buffer)
            except ScheduleError as err:
                self._raise(err)
            index_map, separators = IndexMap.from_func_with_separators(
                index_map, ndim=len(buf.shape), index_dtype=_block_index_dtype(realize.block))
        else:  # a map replayed from a trace's JSON comes back int32
            index_map = index_map.with_index_dtype(_block_index_dtype(realize.block))
        buffer = tuple(buffer) if isinstance(buffer, list) else buffer
        if hasattr(buffer, "shape") and hasattr(buffer, "data"):  # a Buffer: traced as (kind, index), as TVM
            buffer = self._buffer_arg(block, buffer)
        spec = self._buffer_arg(block, buffer) if separators else None  # before the buffer changes
        self._apply(block, transform_layout, realize, buffer, index_map, pad_value,
                    assume_injective_transform)
        self._record("transform_layout", [block], [buffer, index_map, pad_value, assume_injective_transform], [])
        if separators:  # IndexMap.AXIS_SEPARATOR in the mapping: then set_axis_separator
            self.set_axis_separator(block, spec, separators)

    def _check_buffer_index(self, block: BlockRV, buffer, what: str) -> None:
        from .errors import BufferIndexError

        if isinstance(buffer, tuple) and len(buffer) == 2 and buffer[0] in ("read", "write"):
            node = self._block(block).block
            regions = node.reads if buffer[0] == "read" else node.writes
            if not isinstance(buffer[1], int) or not 0 <= buffer[1] < len(regions):
                self._raise(BufferIndexError(f"{what}: block {node.name_hint!r} has no {buffer[0]} buffer "
                                             f"{buffer[1]} (it has {len(regions)})"))

    def set_axis_separator(self, block: BlockRV, buffer, axis_separators) -> None:
        from .layout import set_axis_separator

        buffer = tuple(buffer) if isinstance(buffer, list) else buffer
        if hasattr(buffer, "shape") and hasattr(buffer, "data"):  # a Buffer: traced as (kind, index), as TVM
            buffer = self._buffer_arg(block, buffer)
        self._check_buffer_index(block, buffer, "set_axis_separator")
        self._apply(block, set_axis_separator, self._block(block), buffer, list(axis_separators or []))
        self._record("set_axis_separator", [block], [buffer, list(axis_separators or [])], [])

    def transform_block_layout(self, block: BlockRV, index_map) -> None:
        from .index_map import IndexMap
        from .layout import transform_block_layout

        realize = self._block(block)
        dtype = _block_index_dtype(realize.block)
        index_map = (index_map.with_index_dtype(dtype) if isinstance(index_map, IndexMap) else
                     IndexMap.from_func(index_map, ndim=len(realize.block.iter_vars), index_dtype=dtype))
        self._apply(block, transform_block_layout, realize, index_map)
        self._record("transform_block_layout", [block], [index_map], [])

    # -- blockize / tensorize -------------------------------------------------------------------
    def blockize(self, target, preserve_unit_iters: bool = True) -> BlockRV:
        from .blockize_tensorize import blockize

        if isinstance(target, list | tuple):
            if len(target) != 1:
                self._raise(ScheduleError("blockize of several blocks is not supported; pass one loop"))
            target = target[0]
        fname, name = self._apply(target, blockize, self._loop(target), preserve_unit_iters)
        rv = self._new(BlockRV, (fname, name))
        self._record("blockize", [target], [preserve_unit_iters], [rv])
        return rv

    def tensorize(self, block_or_loop, tensor_intrin: str, preserve_unit_iters: bool = True) -> None:
        from .blockize_tensorize import tensorize, tensorize_loop

        if isinstance(block_or_loop, LoopRV):
            self._apply(block_or_loop, tensorize_loop, self._loop(block_or_loop), tensor_intrin,
                        preserve_unit_iters)
        else:
            self._apply(block_or_loop, tensorize, self._block(block_or_loop), tensor_intrin)
        self._record("tensorize", [block_or_loop], [tensor_intrin, preserve_unit_iters], [])


def _block_index_dtype(block) -> str:
    """The index dtype of maps written for ``block`` (TVM's rule): its first iterator's, else
    its first accessed region's, else int64."""
    for iv in block.iter_vars:
        return str(iv.var.dtype)
    for region in block.reads + block.writes:
        for r in region.region:
            return str(r.min.dtype)
    return "int64"

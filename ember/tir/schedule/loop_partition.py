"""``loop_partition``: a loop becomes several consecutive loops over pieces of its range.

``loop_partition(loop, factors)`` with ``factors = [f_0, …, f_k]`` (at most one ``None``,
inferred as what the others leave of the extent) cuts the range of ``loop`` into pieces
of lengths ``f_0, f_1, …``; when the factors (without a ``None``) leave a remainder, it is
one more, last piece.  The loop is replaced by an opaque block ``<block>_<var>_common``
holding, per piece ``p``, an opaque block ``<block>_<var><p>_partition`` around a copy of
the loop over that piece (loop variable ``<var><p>``).  Every block in a copy gets the
suffix ``_<var><p>`` and fresh variables; a block iterator bound directly to the loop
variable gets the piece as its domain, and a buffer region the block accesses only
through plain iterators (``A[vi, vj]``) becomes the box of those iterators' domains.

The loop needs constant bounds and no annotation or thread binding; factors must be
positive and add up to less than the extent.
"""

from __future__ import annotations

from ember.ir import Range, Var, replace, const
from ember.tir.buffer import BufferLoad, BufferRegion
from ember.tir.functor import IRMutator, collect
from ember.tir.renew_defs import renew_stmt_defs
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, SeqStmt

from . import _arith
from .analysis import replace_stmts, walk
from .errors import ScheduleError

__all__ = ["loop_partition", "partition_ends"]


def partition_ends(func, loop: For, factors: list) -> list[int]:
    """The exclusive end of each piece, checked as TVM checks it."""
    lo, extent = _arith.as_int(loop.min), _arith.as_int(loop.extent)
    if lo is None or extent is None:
        raise ScheduleError(f"loop_partition: the min and extent of loop {loop.loop_var.name!r} must be known "
                            f"constants, got min {loop.min} and extent {loop.extent} (dynamic shape)",
                            func, loop=loop)
    if sum(f is None for f in factors) > 1:
        raise ScheduleError("loop_partition: at most one factor can be None (inferred)", func, loop=loop)
    given = []
    for k, f in enumerate(factors):
        if f is None:
            continue
        value = _arith.as_int(f)
        if value is None:
            raise ScheduleError(f"loop_partition: factor {k} ({f}) is not a constant", func, loop=loop)
        if value <= 0:
            raise ScheduleError(f"loop_partition: factor {k} is {value}; factors must be positive",
                                func, loop=loop)
        given.append(value)
    if sum(given) >= extent:
        raise ScheduleError(f"loop_partition: the factors add up to {sum(given)}, which leaves nothing of the "
                            f"extent {extent} of loop {loop.loop_var.name!r} (they must add up to less)",
                            func, loop=loop)
    lengths = [extent - sum(given) if f is None else _arith.as_int(f) for f in factors]
    if None not in factors:
        lengths.append(extent - sum(given))
    ends, end = [], lo
    for n in lengths:
        end += n
        ends.append(end)
    return ends


def loop_partition(func, loop: For, factors: list):
    """Partition ``loop``; returns (func, loop vars of the pieces)."""
    if loop.annotations or loop.thread_binding is not None:
        raise ScheduleError(f"loop_partition: loop {loop.loop_var.name!r} has annotations or a thread binding",
                            func, loop=loop)
    ends = partition_ends(func, loop, factors)
    bits = max([loop.loop_var.dtype.bits] + [f.dtype.bits for f in factors if hasattr(f, "dtype")])
    dtype = f"int{bits}"
    first = next((r for r in walk(loop.body) if isinstance(r, BlockRealize)), None)
    base = (first.block.name_hint if first is not None else "loop") + "_" + loop.loop_var.name
    pieces, start = [], _arith.as_int(loop.min)
    new_vars = []
    for k, end in enumerate(ends):
        var = Var(f"{loop.loop_var.name}{k}", dtype)
        body = renew_stmt_defs(loop.body, {loop.loop_var: var})
        body = _Narrow(var, start, end).visit(body)
        piece = For(var, const(start, dtype), const(end - start, dtype), loop.kind, body)
        block = Block((), (), (), f"{base}{k}_partition", piece)
        pieces.append(BlockRealize((), const(True, "bool"), block))
        new_vars.append(var)
        start = end
    common = BlockRealize((), const(True, "bool"), Block((), (), (), f"{base}_common", SeqStmt(tuple(pieces))))
    return replace_stmts(func, {loop: common}), new_vars


class _Narrow(IRMutator):
    """Rename the blocks of one piece and narrow the iterators bound to its loop variable."""

    def __init__(self, var: Var, start: int, end: int) -> None:
        super().__init__()
        self.var, self.start, self.end = var, start, end

    def visit_BlockRealize(self, realize: BlockRealize):  # noqa: N802
        block = self.visit(realize.block)
        bound = [k for k, v in enumerate(realize.iter_values) if v is self.var]
        changes = {"name_hint": f"{block.name_hint}_{self.var.name}"}
        if bound and block.iter_vars:
            ivs = list(block.iter_vars)
            iv = ivs[bound[0]]
            dt = iv.var.dtype
            ivs[bound[0]] = type(iv)(Range(const(self.start, dt), const(self.end - self.start, dt)), iv.var,
                                      iv.iter_type, iv.thread_tag)
            doms = {iv.var: iv.dom for iv in ivs}
            changes.update(iter_vars=tuple(ivs), reads=_boxes(block, block.reads, doms),
                           writes=_boxes(block, block.writes, doms))
        return replace(realize, block=replace(block, **changes))


def _boxes(block: Block, regions, doms: dict) -> tuple:
    """Regions of buffers the block indexes only by plain iterators, as their domains' box."""
    out = []
    for region in regions:
        accesses = collect(block.body, lambda n, b=region.buffer: isinstance(n, BufferLoad | BufferStore)
                           and n.buffer is b)
        index_sets = {tuple(id(i) for i in a.indices) for a in accesses}
        plain = accesses and len(index_sets) == 1 and all(isinstance(i, Var) and i in doms
                                                          for i in accesses[0].indices)
        if plain:
            out.append(BufferRegion(region.buffer, tuple(doms[i] for i in accesses[0].indices)))
        else:
            out.append(region)
    return tuple(out)


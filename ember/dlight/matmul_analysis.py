"""Recognising matmul-like blocks for the CPU and GPU rules (Matmul, GEMV): which block iterator
is a batch, the row ``i``, the column ``j`` and the reduction ``k``.

A matmul-like block is a reduction with one reduction iterator ``k`` indexing both
operands; ``j`` indexes only B and the output, ``i`` (if any) only A and the output, and
any batch iterators the output (and possibly both operands).  Operand indices must be
single iterators (a convolution's ``h + kh`` is not a matmul).  Matching uses iterator
kinds and access patterns only, never names.
"""

from __future__ import annotations

from dataclasses import dataclass

from ember.tir.schedule import Schedule

from .analysis import BlockInfo, const_int, root_blocks


@dataclass(frozen=True)
class MatmulRoles:
    """Block-iterator positions of a matmul-like block, and its operand accesses."""

    batch: tuple
    i: int | None
    j: int
    k: int
    a: object  # Access of the operand indexed by i and k
    b: object  # Access of the operand indexed by j and k


def match_matmul(info: BlockInfo) -> MatmulRoles | str:
    """The roles of a matmul-like block's iterators, or the reason it is not one."""
    if not info.is_reduction() or not info.binds_one_to_one:
        return "not a reduction block driven one loop per iterator"
    if len(info.writes) != 1 or len(info.reads) != 2:
        return f"reads {len(info.reads)} operands and writes {len(info.writes)} buffers (want 2 and 1)"
    out = info.writes[0]
    if any(len(d) != 1 for d in out.dims):
        return "output indices are not one iterator each"
    s_out = out.iters()
    reds = {n for n, c in enumerate(info.kinds) if c == "R"}
    if len(reds) != 1 or s_out != {n for n, c in enumerate(info.kinds) if c == "S"}:
        return "wants one reduction iterator and every spatial iterator in the output"
    (k,) = reds
    x, y = info.reads
    if k not in x.iters() or k not in y.iters():
        return "the reduction iterator does not index both operands"
    if any(len(d) > 1 for d in x.dims + y.dims):
        return "an operand index mixes iterators (a convolution?)"
    out_order = [next(iter(d)) for d in out.dims]
    for a, b in ((x, y), (y, x)):
        only_b = (b.iters() - a.iters()) & s_out
        only_a = (a.iters() - b.iters()) & s_out
        if len(only_b) != 1:
            continue
        # several A-only iterators (x[b, s, k] @ w[k, n]): the innermost is the row, unless it
        # is a unit one (a decode step's (batch, 1, k)): then the innermost other, so that B is
        # read once for all the rows rather than once per batch
        i = _row_iterator(only_a, out_order, info)
        batch = tuple(sorted((a.iters() & b.iters() & s_out) | (only_a - {i})))
        if set(batch) | only_a | only_b != s_out:
            continue
        return MatmulRoles(batch, i, next(iter(only_b)), k, a, b)
    return "no operand pair with one row and one column iterator"


def _row_iterator(only_a: set, out_order: list, info: BlockInfo) -> int | None:
    if not only_a:
        return None
    inner_first = sorted(only_a, key=out_order.index, reverse=True)
    return next((p for p in inner_first if const_int(info.loop_extents[p]) != 1), inner_first[0])


def find_matmul(sch: Schedule) -> tuple[int, MatmulRoles] | str:
    """(position among the root blocks, roles) of the one matmul-like block, or why not."""
    blocks = root_blocks(sch)
    found = [(n, match_matmul(b)) for n, b in enumerate(blocks)]
    hits = [(n, r) for n, r in found if isinstance(r, MatmulRoles)]
    if len(hits) != 1:
        why = "; ".join(f"{blocks[n].name}: {r}" for n, r in found if isinstance(r, str))
        return f"{len(hits)} matmul-like blocks ({why})"
    return hits[0]


def rows(info: BlockInfo, roles: MatmulRoles) -> int | None:
    """Rows of the output per batch (1 without a row iterator; None when symbolic)."""
    return 1 if roles.i is None else const_int(info.loop_extents[roles.i])


def batch_size(info: BlockInfo, roles: MatmulRoles) -> int | None:
    """Product of the batch extents (None when one is symbolic)."""
    total = 1
    for p in roles.batch:
        extent = const_int(info.loop_extents[p])
        if extent is None:
            return None
        total *= extent
    return total


def moves_data(info: BlockInfo) -> bool:
    """Whether a block only copies or casts one element (cheap to inline into a matmul)."""
    from ember.ir import Cast
    from ember.tir import BufferLoad, BufferStore

    body = info.block.body
    if not isinstance(body, BufferStore):
        return False
    value = body.value
    while isinstance(value, Cast):
        value = value.value
    return isinstance(value, BufferLoad)

"""What a default schedule rule needs to know about a PrimFunc's blocks.

``BlockInfo`` summarises one block of the root scope: its name, its iterators' kinds
("S" spatial, "R" reduction, "O" anything else), the loops above it and, per buffer it
reads or writes, which block iterators index each dimension.  Rules match on these
facts (iterator kinds and access patterns), never on block or buffer names.
"""

from __future__ import annotations

from dataclasses import dataclass

from ember.tir import Block, BlockRealize, BufferLoad, BufferStore, For, ForKind, IterVarType, PrimFunc, Var, post_order_visit
from ember.tir.schedule import BlockRV, LoopRV, Schedule

_KIND = {IterVarType.DataPar: "S", IterVarType.CommReduce: "R"}


@dataclass(frozen=True)
class Access:
    """One buffer access: per dimension, the block iterators (by position) its index uses."""

    buffer: object
    dims: tuple  # tuple[frozenset[int], ...]

    def iters(self) -> frozenset:
        out: frozenset = frozenset()
        for d in self.dims:
            out |= d
        return out


@dataclass(frozen=True)
class BlockInfo:
    """A block of the root scope and the facts rules match on."""

    name: str
    rv: BlockRV
    kinds: str  # one letter per block iterator: S, R or O
    loops: tuple  # LoopRVs above the block, outermost first
    loop_extents: tuple  # PrimExpr per loop
    binds_one_to_one: bool  # each loop drives exactly one iterator, in order
    reads: tuple  # Access per read (the updated buffer excluded)
    writes: tuple  # Access per write
    block: Block

    def is_spatial(self) -> bool:
        return bool(self.kinds) and set(self.kinds) == {"S"}

    def is_reduction(self) -> bool:
        return "R" in self.kinds and set(self.kinds) <= {"S", "R"}


def _vars_in(expr) -> set:
    found: set = set()
    post_order_visit(expr, lambda n: found.add(n) if isinstance(n, Var) else None)
    return found


def _accesses(block: Block, iter_pos: dict) -> tuple[tuple, tuple]:
    """(reads, writes) with per-dimension iterator positions, from the block body's loads/stores."""
    loads: dict = {}
    stores: dict = {}

    def record(table, buf, indices):
        dims = tuple(frozenset(iter_pos[v] for v in _vars_in(i) if v in iter_pos) for i in indices)
        table.setdefault(id(buf), Access(buf, dims))

    def visit(node):
        if isinstance(node, BufferLoad):
            record(loads, node.buffer, node.indices)
        elif isinstance(node, BufferStore):
            record(stores, node.buffer, node.indices)

    post_order_visit(block.body, visit)
    reads = tuple(a for k, a in loads.items() if k not in stores)
    return reads, tuple(stores.values())


def _realize_of(func: PrimFunc, block: Block) -> BlockRealize:
    from ember.tir.schedule.analysis import walk  # statements only: expressions cannot hold blocks

    return next(s for s in walk(func.body) if isinstance(s, BlockRealize) and s.block is block)


def block_info(sch: Schedule, rv: BlockRV, realizes: dict | None = None) -> BlockInfo:
    """Facts about the block ``rv`` in the schedule's current IR (``realizes``: id of each
    block → its BlockRealize, when the caller walked the function once for many blocks)."""
    block = sch.get(rv)
    realize = realizes.get(id(block)) if realizes is not None else None
    if realize is None:
        realize = _realize_of(sch.mod[sch.func_working_on], block)
    iter_pos = {iv.var: n for n, iv in enumerate(block.iter_vars)}
    kinds = "".join(_KIND.get(iv.iter_type, "O") for iv in block.iter_vars)
    loops = sch.get_loops(rv)
    fors = [sch.get(lp) for lp in loops]
    loop_vars = [f.loop_var for f in fors]
    one_to_one = len(loop_vars) == len(realize.iter_values) and all(
        isinstance(v, Var) and v is lv for v, lv in zip(realize.iter_values, loop_vars))
    reads, writes = _accesses(block, iter_pos)
    return BlockInfo(block.name_hint, rv, kinds, tuple(loops), tuple(f.extent for f in fors),
                     one_to_one, reads, writes, block)


def root_blocks(sch: Schedule) -> list[BlockInfo]:
    """The blocks directly under the function's root block, in program order."""
    from ember.tir.schedule.analysis import walk

    # one walk for all of them (a walk per block was quadratic: DenseNet's concatenations)
    realizes = {id(s.block): s for s in walk(sch.mod[sch.func_working_on].body) if isinstance(s, BlockRealize)}
    return [block_info(sch, rv, realizes) for rv in sch.get_child_blocks(sch.get_block("root"))]


def has_root_block(func: PrimFunc) -> bool:
    """Whether ``func`` is block-structured (a root block with at least one child block)."""
    found: list = []
    post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, Block) else None)
    return any(b.name_hint == "root" for b in found) and len(found) > 1


def looks_scheduled(func: PrimFunc) -> bool:
    """Whether someone already scheduled ``func`` by hand: a loop that is not a plain serial
    loop (parallel, vectorised, unrolled, thread-bound or annotated)."""
    found: list = []

    def visit(node):
        if isinstance(node, For) and (node.kind != ForKind.SERIAL or node.thread_binding is not None
                                      or node.annotations):
            found.append(node)

    post_order_visit(func.body, visit)
    return bool(found)


def is_loop_nest_only(sch: Schedule, loops: list[LoopRV]) -> bool:
    """Whether the loops are plain ``For`` nodes (no thread bindings yet)."""
    return all(isinstance(sch.get(lp), For) and sch.get(lp).thread_binding is None for lp in loops)


def const_int(expr) -> int | None:
    """The value of an integer constant, else None (symbolic)."""
    value = getattr(expr, "value", None)
    return int(value) if isinstance(value, int) else None

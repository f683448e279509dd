"""Facts about one block that schedule rules, postprocessors and features look at:
iterator kinds ("S"/"R"/"O" per iterator), whether each loop drives one iterator in
order, which buffers it reads and writes and with which iterators, whether it writes a
function parameter.  Read from the IR with ``sch.get`` (nothing is recorded in the trace)."""

from __future__ import annotations

from dataclasses import dataclass

from ember.tir import BlockRealize, BufferLoad, IterVarType, Var, post_order_visit
from ember.tir.schedule import BlockRV, Schedule
from ember.tir.schedule.analysis import find_block

from .utils import prim_func_of

_KIND = {IterVarType.DataPar: "S", IterVarType.CommReduce: "R"}


@dataclass(frozen=True)
class BlockFacts:
    name: str
    kinds: str
    one_to_one: bool
    is_output: bool
    has_init: bool
    read_iters: tuple  # per read buffer (other than the written one): frozenset of iterator positions
    write_last_iter: int | None  # the iterator indexing the last dimension of the first write

    @property
    def spatial(self) -> bool:
        return bool(self.kinds) and set(self.kinds) == {"S"}

    @property
    def reduction(self) -> bool:
        return "R" in self.kinds and set(self.kinds) <= {"S", "R"}


def _vars(expr) -> set:
    out: set = set()
    post_order_visit(expr, lambda n: out.add(n) if isinstance(n, Var) else None)
    return out


def block_facts(sch: Schedule, block: BlockRV) -> BlockFacts:
    func = prim_func_of(sch.mod)[1]
    realize: BlockRealize = find_block(func, sch.get(block).name_hint)
    blk = realize.block
    pos = {iv.var: n for n, iv in enumerate(blk.iter_vars)}
    kinds = "".join(_KIND.get(iv.iter_type, "O") for iv in blk.iter_vars)
    one_to_one = all(isinstance(v, Var) for v in realize.iter_values) and \
        len({id(v) for v in realize.iter_values}) == len(realize.iter_values)
    written = {w.buffer for w in blk.writes}
    loads: dict = {}

    def visit(node):
        if isinstance(node, BufferLoad) and node.buffer not in written:
            used = loads.setdefault(node.buffer, set())
            for index in node.indices:
                used |= {pos[v] for v in _vars(index) if v in pos}

    post_order_visit(blk.body, visit)
    last = None
    if blk.writes and blk.writes[0].region:
        used = {pos[v] for v in _vars(blk.writes[0].region[-1].min) if v in pos}
        last = next(iter(used)) if len(used) == 1 else None
    params = {func.buffer_map[p].data for p in func.params if p in func.buffer_map}
    is_output = any(w.buffer.data in params for w in blk.writes)
    return BlockFacts(blk.name_hint, kinds, one_to_one, is_output, blk.init is not None,
                      tuple(frozenset(s) for s in loads.values()), last)

"""``PostOrderApply``: applies every schedule rule to every block, consumers first.

Blocks are visited from the last (an output) to the first, then the root block (where
``ParallelizeVectorizeUnroll`` marks the whole function).  At each block every rule runs
on every schedule made so far; a rule may branch (several schedules back).  A block
annotated ``schedule_rule = "None"``, or rejected by ``f_block_filter``, is skipped."""

from __future__ import annotations

from ember.tir import Block, post_order_visit
from ember.tir.schedule import Schedule

from ..utils import prim_func_of
from .space_generator import SpaceGeneratorBase


def _block_names(sch: Schedule) -> list[str]:
    names: list = []
    post_order_visit(prim_func_of(sch.mod)[1].body,
                     lambda n: names.append(n.name_hint) if isinstance(n, Block) else None)
    return names  # post order: children before parents, siblings in program order; root last


def _exists(sch: Schedule, name: str) -> bool:
    return name in _block_names(sch)


class PostOrderApply(SpaceGeneratorBase):
    def __init__(self, f_block_filter=None, sch_rules="from-target", postprocs="from-target",
                 mutator_probs="from-target"):
        super().__init__(sch_rules, postprocs, mutator_probs)
        self.f_block_filter = f_block_filter

    def generate_design_space(self, mod) -> list[Schedule]:
        sch = Schedule(mod, seed=self.context.fork_seed(), debug_mask=0)
        names = _block_names(sch)
        order = [n for n in reversed(names[:-1])] + names[-1:]  # consumers first, root last
        spaces = [sch]
        for name in order:
            for rule in self.sch_rules:
                nxt = []
                for s in spaces:
                    if not _exists(s, name):
                        nxt.append(s)
                        continue
                    rv = s.get_block(name)
                    block_node = s.get(rv)
                    if block_node.annotations.get("schedule_rule") == "None" or (
                            self.f_block_filter is not None and name != "root"
                            and not self.f_block_filter(block_node)):
                        nxt.append(s)
                        continue
                    nxt.extend(rule.apply(s, rv))
                spaces = nxt
        return spaces

    def clone(self):
        new = PostOrderApply(self.f_block_filter, self.sch_rules, self.postprocs, self.mutator_probs)
        if hasattr(self, "context"):
            new.context = self.context
        return new

"""``RewriteReductionBlock``: splits every reduction block with an init statement into an
init block and an update block (``decompose_reduction``) at its outermost loop that
drives a reduction iterator, so the init runs once per output tile."""

from __future__ import annotations

from ember.tir import Var
from ember.tir.schedule import Schedule, ScheduleError
from ember.tir.schedule.analysis import find_block

from ..utils import prim_func_of


def _reduction_blocks(sch: Schedule) -> list[str]:
    from ember.tir import Block, IterVarType, post_order_visit

    names = []

    def visit(n):
        if isinstance(n, Block) and n.init is not None and \
                any(iv.iter_type == IterVarType.CommReduce for iv in n.iter_vars):
            names.append(n.name_hint)

    post_order_visit(prim_func_of(sch.mod)[1].body, visit)
    return names


class RewriteReductionBlock:
    def _initialize_with_tune_context(self, context) -> None:
        pass

    def clone(self):
        return self

    def apply(self, sch: Schedule) -> bool:
        from ember.tir import IterVarType, post_order_visit

        for name in _reduction_blocks(sch):
            block = sch.get_block(name)
            realize = find_block(prim_func_of(sch.mod)[1], name)
            reduce_vars = set()
            for iv, value in zip(realize.block.iter_vars, realize.iter_values):
                if iv.iter_type == IterVarType.CommReduce:
                    post_order_visit(value, lambda n, found=reduce_vars: found.add(n) if isinstance(n, Var) else None)
            for loop in sch.get_loops(block):
                if sch.get(loop).loop_var in reduce_vars:
                    try:
                        sch.decompose_reduction(block, loop)
                    except ScheduleError:
                        return False
                    break
        return True

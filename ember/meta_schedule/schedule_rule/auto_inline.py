"""``AutoInline``: inline spatial blocks into their consumers (and, with ``into_producer``,
elementwise output blocks into their producer) whenever that is legal.  Blocks with an
``if_then_else`` (padding) or a call to an op in ``disallow_op`` are kept (their results
are computed once and placed by RandomComputeLocation instead)."""

from __future__ import annotations

from dataclasses import dataclass

from ember.tir import Call, IfThenElse, post_order_visit
from ember.tir.schedule import BlockRV, Schedule, ScheduleError

from ..block_facts import block_facts


def _calls(block, names) -> bool:
    found = []
    post_order_visit(block.body, lambda n: found.append(n) if isinstance(n, Call)
                     and getattr(n.op, "name", None) in names else None)
    return bool(found)


def _has_if(block) -> bool:
    found = []

    def visit(n):
        if isinstance(n, IfThenElse) or (getattr(n, "op", None) is not None
                                         and getattr(n.op, "name", "") == "tir.if_then_else"):
            found.append(n)

    post_order_visit(block.body, visit)
    return bool(found)


@dataclass(frozen=True)
class AutoInline:
    into_producer: bool = False
    into_consumer: bool = True
    inline_const_tensor: bool = True
    disallow_if_then_else: bool = True
    require_injective: bool = True
    require_ordered: bool = True
    disallow_op: tuple = ()

    def _initialize_with_tune_context(self, context) -> None:
        pass

    def apply(self, sch: Schedule, block: BlockRV) -> list[Schedule]:
        facts = block_facts(sch, block)
        node = sch.get(block)
        if not facts.spatial or (self.disallow_if_then_else and _has_if(node)) or \
                (self.disallow_op and _calls(node, set(self.disallow_op))):
            return [sch]
        if self.into_consumer and not facts.is_output:
            try:
                sch.compute_inline(block)
                return [sch]
            except ScheduleError:
                pass
        if self.into_producer:
            try:
                sch.reverse_compute_inline(block)
            except ScheduleError:
                pass
        return [sch]

    def clone(self) -> AutoInline:
        return self

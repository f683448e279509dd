"""``DisallowDynamicLoop``: rejects candidates with a loop whose extent is not a constant."""

from __future__ import annotations

from ember.tir import For, post_order_visit
from ember.tir.schedule import Schedule

from ..utils import prim_func_of


class DisallowDynamicLoop:
    def _initialize_with_tune_context(self, context) -> None:
        pass

    def clone(self):
        return self

    def apply(self, sch: Schedule) -> bool:
        dynamic = []
        post_order_visit(prim_func_of(sch.mod)[1].body,
                         lambda n: dynamic.append(n) if isinstance(n, For) and not hasattr(n.extent, "value") else None)
        return not dynamic

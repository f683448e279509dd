"""``VerifyGPUCode``: rejects GPU candidates whose thread blocks exceed the target's
``max_num_threads`` (product of threadIdx extents) — checked on the scheduled IR."""

from __future__ import annotations

from ember.tir import For, ForKind, post_order_visit
from ember.tir.schedule import Schedule

from ..utils import prim_func_of


class VerifyGPUCode:
    def __init__(self):
        self.max_threads = 1024

    def _initialize_with_tune_context(self, context) -> None:
        self.max_threads = int(getattr(context.target, "max_num_threads", 1024) or 1024)

    def clone(self):
        return self

    def apply(self, sch: Schedule) -> bool:
        extents: dict = {}

        def visit(n):
            if isinstance(n, For) and n.kind == ForKind.THREAD_BINDING and n.thread_binding is not None:
                tag = n.thread_binding.thread_tag
                if tag.startswith("threadIdx") and hasattr(n.extent, "value"):
                    extents[tag] = max(extents.get(tag, 1), int(n.extent.value))

        post_order_visit(prim_func_of(sch.mod)[1].body, visit)
        total = 1
        for e in extents.values():
            total *= e
        return total <= self.max_threads

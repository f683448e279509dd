"""``calculate_allocated_bytes``: bytes a PrimFunc allocates, per storage scope.

Counts ``Allocate`` statements (lowered functions) and blocks' ``alloc_buffers`` (not
yet lowered) with constant sizes; a function gives ``{"main": {scope: bytes}}``, a
module ``{function name: {scope: bytes}}`` for each of its PrimFuncs.
"""

from __future__ import annotations

from ember.ir import IntImm
from ember.tir.functor import IRVisitor
from ember.tir.stmt import Allocate, Block

__all__ = ["calculate_allocated_bytes"]


class _Counter(IRVisitor):
    def __init__(self) -> None:
        self.sizes: dict[str, int] = {}

    def add(self, scope: str, dtype, extents) -> None:
        count = 1
        for e in extents:
            if not isinstance(e, IntImm):
                return  # a symbolic size is not a constant allocation
            count *= e.value
        nbytes = count * ((dtype.bits * dtype.lanes + 7) // 8)
        self.sizes[scope] = self.sizes.get(scope, 0) + nbytes

    def visit_Allocate(self, s: Allocate) -> None:  # noqa: N802
        ann = s.buffer_var.type_annotation
        self.add(getattr(ann, "storage_scope", "global") or "global", s.dtype, s.extents)
        self.generic_visit(s)

    def visit_Block(self, b: Block) -> None:  # noqa: N802
        for buf in b.alloc_buffers:
            self.add(buf.scope(), buf.dtype, buf.shape)
        self.generic_visit(b)


def _of_func(func) -> dict:
    counter = _Counter()
    counter.visit(func.body)
    return counter.sizes


def calculate_allocated_bytes(func_or_mod) -> dict:
    """``{name: {scope: bytes}}`` (see the module docstring)."""
    from ember.ir import IRModule
    from ember.tir.function import PrimFunc

    if isinstance(func_or_mod, PrimFunc):
        return {"main": _of_func(func_or_mod)}
    if isinstance(func_or_mod, IRModule):
        return {gv.name_hint: _of_func(f) for gv, f in func_or_mod.functions.items() if isinstance(f, PrimFunc)}
    raise TypeError(f"calculate_allocated_bytes: expected a PrimFunc or an IRModule, got "
                    f"{type(func_or_mod).__name__}")

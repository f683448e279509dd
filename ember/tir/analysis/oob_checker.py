"""``tir.analysis.OOBChecker()``: a module pass that refuses loads and stores whose indices
provably leave their buffer (TVM's name; it raises a ``ScheduleError``).

Each index is bounded with the arithmetic analyzer while loop variables range over their
loops (block iterators over their domains); an index whose bound is known and falls outside
``[0, extent)`` of a constant dimension is an error naming the buffer, the index and the
bound. Indices the analyzer cannot bound (a free parameter ``N``) are accepted.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import IntImm, Range
from ember.ir.expr import int_range

from ..buffer import BufferLoad
from ..functor import IRVisitor
from ..stmt import BufferStore

__all__ = ["OOBChecker"]

class _Checker(IRVisitor):
    def __init__(self):
        self.analyzer = Analyzer()
        self.problems: list[str] = []

    def visit_For(self, loop) -> None:
        self.analyzer.bind(loop.loop_var, Range(loop.min, loop.extent), allow_override=True)
        self.generic_visit(loop)

    def visit_Block(self, block) -> None:
        for iv in block.iter_vars:
            if iv.dom is not None:
                self.analyzer.bind(iv.var, iv.dom, allow_override=True)
        self.generic_visit(block)

    def check(self, kind: str, buffer, indices) -> None:
        for dim, (index, extent) in enumerate(zip(indices, buffer.shape)):
            if not isinstance(extent, IntImm) or index.dtype.lanes != 1:
                continue
            bound = self.analyzer.const_int_bound(index)
            lo, hi = bound.min_value, bound.max_value
            dmin, dmax = int_range(index.dtype)  # a bound at the dtype's limit: not known
            if (dmax > hi >= extent.value) or (dmin < lo < 0):
                self.problems.append(
                    f"out-of-bounds {kind} of buffer {buffer.name} at dimension {dim}: index {index} "
                    f"ranges over [{lo}, {hi}] but the dimension has extent {extent.value}")

    def visit_BufferLoad(self, load: BufferLoad) -> None:
        self.check("load", load.buffer, load.indices)
        self.visit(load.indices)

    def visit_BufferStore(self, store: BufferStore) -> None:
        self.check("store", store.buffer, store.indices)
        self.visit(store.value)
        self.visit(store.indices)


def OOBChecker():  # noqa: N802 - TVM's name
    """The pass: returns the module unchanged, or raises ScheduleError at the first
    function with provably out-of-bounds accesses (every such access listed)."""
    from ember.transform import module_pass

    from ..function import PrimFunc

    @module_pass(opt_level=0, name="tir.analysis.OOBChecker")
    def check(mod, ctx):
        from ..schedule.errors import ScheduleError

        for gv, func in mod.functions.items():
            if not isinstance(func, PrimFunc):
                continue
            checker = _Checker()
            checker.visit(func.body)
            if checker.problems:
                raise ScheduleError("; ".join(checker.problems), func, func_name=gv.name_hint)
        return mod

    return check

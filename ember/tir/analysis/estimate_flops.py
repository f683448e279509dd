"""``tir.analysis.estimate_tir_flops``: the arithmetic operations a PrimFunc performs, as
TVM counts them (an estimate for reports and tuning, not a cost model).

Every arithmetic, comparison and logical node counts one, and a call counts one plus its
arguments; indices of loads and stores are address arithmetic and do not count, nor do
conditions of ``if``. A loop multiplies its body by its extent (the extent's upper bound
when it depends on outer loops), an ``if`` counts its costlier branch, a block its body
(not its ``init``). A function attribute ``estimated_flops`` overrides the count; a module
sums its PrimFuncs.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Call, Div, FloorDiv, FloorMod, IRModule, IntImm, Let, Max,
    Min, Mod, Mul, Not, Or, Range, Select, Sub,
)

from ..buffer import BufferLoad
from ..function import PrimFunc
from ..stmt import (
    Allocate, AttrStmt, Block, BlockRealize, BufferStore, DeclBuffer, Evaluate, For, IfThenElse,
    LetStmt, SeqStmt, While,
)

__all__ = ["estimate_tir_flops"]

_COUNTED = (Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max, EQ, NE, LT, LE, GT, GE, And, Or)


class _Counter:
    def __init__(self):
        self.analyzer = Analyzer()

    def expr(self, e) -> float:
        if isinstance(e, _COUNTED):
            return 1 + self.expr(e.a) + self.expr(e.b)
        if isinstance(e, Not):
            return 1 + self.expr(e.a)
        if isinstance(e, Select):
            return 1 + self.expr(e.true_value) + self.expr(e.false_value)
        if isinstance(e, Call):
            return 1 + sum(self.expr(a) for a in e.args)
        if isinstance(e, Let):
            return self.expr(e.value) + self.expr(e.body)
        if isinstance(e, BufferLoad):
            return 0
        value = getattr(e, "value", None)  # Cast, Broadcast
        return self.expr(value) if hasattr(value, "dtype") and not isinstance(e, IntImm) else 0

    def stmt(self, s) -> float:
        if s is None:
            return 0
        if isinstance(s, SeqStmt):
            return sum(self.stmt(x) for x in s.seq)
        if isinstance(s, For):
            bound = self.analyzer.const_int_bound(s.extent).max_value
            extent = bound if isinstance(s.extent, IntImm) or bound < 2 ** 31 - 1 else 1
            self.analyzer.bind(s.loop_var, Range(s.min, s.extent), allow_override=True)
            return max(extent, 0) * self.stmt(s.body)
        if isinstance(s, IfThenElse):
            return max(self.stmt(s.then_case), self.stmt(s.else_case))
        if isinstance(s, LetStmt):
            return self.expr(s.value) + self.stmt(s.body)
        if isinstance(s, BufferStore):
            return self.expr(s.value)
        if isinstance(s, Evaluate):
            return self.expr(s.value)
        if isinstance(s, BlockRealize):
            return self.stmt(s.block)
        if isinstance(s, Block):
            return self.stmt(s.body)
        if isinstance(s, AttrStmt | Allocate | DeclBuffer | While):
            return self.stmt(s.body)
        body = getattr(s, "body", None)
        return self.stmt(body) if body is not None else 0


def _func_flops(func: PrimFunc) -> float:
    override = (func.attrs or {}).get("estimated_flops")
    if override is not None:
        return float(getattr(override, "value", override))
    return float(_Counter().stmt(func.body))


def estimate_tir_flops(stmt_or_mod) -> float:
    """The operation count of a Stmt, a PrimFunc or every PrimFunc of an IRModule."""
    if isinstance(stmt_or_mod, IRModule):
        return float(sum(_func_flops(f) for f in stmt_or_mod.functions.values() if isinstance(f, PrimFunc)))
    if isinstance(stmt_or_mod, PrimFunc):
        return _func_flops(stmt_or_mod)
    return float(_Counter().stmt(stmt_or_mod))

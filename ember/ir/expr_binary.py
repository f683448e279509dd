"""Binary expression nodes: arithmetic (Add, Sub, Mul, Div and Mod truncating on
integers, FloorDiv, FloorMod, Min, Max), comparisons (EQ, NE, LT, LE, GT, GE) and logic
(And, Or, and the unary Not).  A Python number operand takes the other operand's dtype."""

from __future__ import annotations

from ember.runtime.dtype import DataType

from .node import node
from .prim_expr import BOOL, PrimExpr

__all__ = [
    "BinaryOp", "Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max",
    "CmpOp", "EQ", "NE", "LT", "LE", "GT", "GE", "And", "Or", "Not",
]

PY_SCALARS = (bool, int, float)  # a tuple: an ``A | B`` union would be built at every node


@node
class BinaryOp(PrimExpr):
    a: PrimExpr
    b: PrimExpr

    def __post_init__(self):  # Add(i, 0): a Python number takes the other operand's dtype
        a, b = self.a, self.b
        if isinstance(b, PY_SCALARS) and isinstance(a, PrimExpr):
            object.__setattr__(self, "b", as_expr(b, a.dtype))
        elif isinstance(a, PY_SCALARS) and isinstance(b, PrimExpr):
            object.__setattr__(self, "a", as_expr(a, b.dtype))

    @property
    def dtype(self) -> DataType:
        return self.a.dtype


@node
class Add(BinaryOp):
    pass


@node
class Sub(BinaryOp):
    pass


@node
class Mul(BinaryOp):
    pass


@node
class Div(BinaryOp):
    """Division; truncating (C semantics) for integers."""


@node
class Mod(BinaryOp):
    """Truncating remainder (C semantics)."""


@node
class FloorDiv(BinaryOp):
    pass


@node
class FloorMod(BinaryOp):
    pass


@node
class Min(BinaryOp):
    pass


@node
class Max(BinaryOp):
    pass


@node
class CmpOp(BinaryOp):
    @property
    def dtype(self) -> DataType:
        return BOOL.with_lanes(self.a.dtype.lanes)


@node
class EQ(CmpOp):
    def __bool__(self):  # lets ``x in list`` and dict lookups work on identity
        return self.a is self.b

    def asobject(self):  # TVM's EqualOp.asobject(): ember's ``==`` already gives the node
        return self


@node
class NE(CmpOp):
    def __bool__(self):
        return self.a is not self.b

    def asobject(self):
        return self


@node
class LT(CmpOp):
    pass


@node
class LE(CmpOp):
    pass


@node
class GT(CmpOp):
    pass


@node
class GE(CmpOp):
    pass


@node
class And(CmpOp):
    pass


@node
class Or(CmpOp):
    pass


@node
class Not(PrimExpr):
    a: PrimExpr

    @property
    def dtype(self) -> DataType:
        return self.a.dtype



from .expr_build import as_expr  # noqa: E402 - expr_build builds these nodes

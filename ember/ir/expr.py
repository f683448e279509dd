"""Scalar expressions (PrimExpr) and their Python operators: the public home of every name.

Leaves: IntImm, FloatImm, StringImm, Var, SizeVar.  Arithmetic: Add, Sub, Mul, Div
(truncating for integers), Mod (truncating), FloorDiv, FloorMod, Min, Max.
Comparisons: EQ, NE, LT, LE, GT, GE.  Logic: And, Or, Not.  Others: Cast, Select,
Ramp, Broadcast, Let, Call (to an ``Op`` or a ``GlobalVar``).  ``Range`` is a
(min, extent) pair.

Python operators build these nodes: ``//`` and ``%`` are floor division and floor
modulo as in TVM, ``/`` is true division for floats and truncating division for
integers.  Python numbers are converted to constants of the other operand's type;
operands of different types are promoted (int → wider int → float).  Two constants
fold to a constant; nothing else is simplified here (that is ``ember.arith``).

The code lives in one module per job: ``prim_expr`` (the base class and its operators),
``expr_leaves``, ``expr_binary``, ``expr_compound`` (the node classes) and
``expr_build`` (constants, promotion, folding).  ``prim_expr`` is imported first: the
others import it, and it imports them once ``PrimExpr`` exists.
"""

from __future__ import annotations

from .prim_expr import BOOL, FLOAT32, HANDLE, INT32, INT64, DataTypeError, PrimExpr  # noqa: F401
from .expr_build import (  # noqa: F401 - int_range, wrap_int, fold_cast: used by other layers
    as_expr, binary, const, convert, fold_cast, int_range, promote, wrap_int,
)
from .expr_leaves import FloatImm, IntImm, PointerType, SizeVar, StringImm, Var
from .expr_binary import (
    EQ, GE, GT, LE, LT, NE, Add, And, BinaryOp, CmpOp, Div, FloorDiv, FloorMod, Max, Min, Mod, Mul,
    Not, Or, Sub,
)
from .expr_compound import (
    Broadcast, Call, Cast, Let, Ramp, Range, Select, Shuffle, scalable_lanes, vector_lanes,  # noqa: F401
)

__all__ = [
    "PrimExpr", "IntImm", "FloatImm", "StringImm", "Var", "SizeVar", "PointerType",
    "BinaryOp", "Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max",
    "CmpOp", "EQ", "NE", "LT", "LE", "GT", "GE", "And", "Or", "Not",
    "Cast", "Select", "Ramp", "Broadcast", "Shuffle", "Let", "Call", "Range",
    "const", "convert", "as_expr", "binary", "promote",
]

# The classes' public module stays ``ember.ir.expr``: JSON written by ``save_json`` names
# node types by module, and files written before the split must keep loading unchanged.
for _cls in (
    PrimExpr, IntImm, FloatImm, StringImm, PointerType, Var, SizeVar, BinaryOp, Add, Sub, Mul,
    Div, Mod, FloorDiv, FloorMod, Min, Max, CmpOp, EQ, NE, LT, LE, GT, GE, And, Or, Not, Cast,
    Select, Ramp, Broadcast, Shuffle, Let, Call, Range, DataTypeError,
):
    _cls.__module__ = __name__
del _cls

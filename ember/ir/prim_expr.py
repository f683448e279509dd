"""``PrimExpr``, the base of scalar expressions, and its Python operators.

Every operator builds a node through ``binary`` (promotion, then constant folding) or an
intrinsic ``Call``: ``//`` and ``%`` are floor division and floor modulo as in TVM, ``/``
is true division for floats and truncating division for integers, ``&``, ``|`` and ``~``
are logical on bools and bitwise on integers.  ``DataTypeError`` and the common dtypes
live here too, because every expression module needs them.
"""

from __future__ import annotations

from ember.error import TVMError
from ember.runtime.dtype import DataType

from .node import Node
from .op import Op

__all__ = ["PrimExpr", "DataTypeError", "BOOL", "INT32", "INT64", "FLOAT32", "HANDLE"]


class DataTypeError(TVMError, TypeError):
    """Operands whose dtypes the operation cannot take (a float shifted, an int in a logical and)."""


BOOL = DataType("bool")
INT32 = DataType("int32")
INT64 = DataType("int64")
FLOAT32 = DataType("float32")
HANDLE = DataType("handle")


class PrimExpr(Node):
    """Base of scalar expressions; every subclass has a ``dtype``."""

    __slots__ = ()

    # arithmetic ---------------------------------------------------------------
    def __add__(self, other):
        return binary(Add, self, other)

    def __radd__(self, other):
        return binary(Add, other, self)

    def __sub__(self, other):
        return binary(Sub, self, other)

    def __rsub__(self, other):
        return binary(Sub, other, self)

    def __mul__(self, other):
        return binary(Mul, self, other)

    def __rmul__(self, other):
        return binary(Mul, other, self)

    def __truediv__(self, other):
        return binary(Div, self, other)

    def __rtruediv__(self, other):
        return binary(Div, other, self)

    def __floordiv__(self, other):
        return binary(FloorDiv, self, other)

    def __rfloordiv__(self, other):
        return binary(FloorDiv, other, self)

    def __mod__(self, other):
        return binary(FloorMod, self, other)

    def __rmod__(self, other):
        return binary(FloorMod, other, self)

    def __neg__(self):
        if isinstance(self, IntImm | FloatImm):
            return type(self)(self.dtype, -self.value)
        if str(self.dtype).startswith("uint"):  # no -1 of an unsigned type: 0 - x wraps the same way
            return binary(Sub, const(0, self.dtype), self)
        return binary(Mul, self, const(-1, self.dtype))  # as TVM: -x is x * -1

    # comparisons --------------------------------------------------------------
    def __lt__(self, other):
        return binary(LT, self, other)

    def __le__(self, other):
        return binary(LE, self, other)

    def __gt__(self, other):
        return binary(GT, self, other)

    def __ge__(self, other):
        return binary(GE, self, other)

    def __eq__(self, other):
        return binary(EQ, self, other)

    def __ne__(self, other):
        return binary(NE, self, other)

    __hash__ = object.__hash__

    # logic and bits -----------------------------------------------------------
    def __and__(self, other):
        return logic_or_bits(And, "tir.bitwise_and", self, other)

    def __rand__(self, other):
        return logic_or_bits(And, "tir.bitwise_and", other, self)

    def __or__(self, other):
        return logic_or_bits(Or, "tir.bitwise_or", self, other)

    def __ror__(self, other):
        return logic_or_bits(Or, "tir.bitwise_or", other, self)

    def __xor__(self, other):
        return bitwise_call("tir.bitwise_xor", self, other)

    def __rxor__(self, other):
        return bitwise_call("tir.bitwise_xor", other, self)

    def __invert__(self):
        if self.dtype.is_bool:
            return Not(self)
        if self.dtype.is_float:
            raise DataTypeError(f"bitwise_not needs an integer operand, got {self.dtype} ({self!r})")
        if isinstance(self, IntImm):
            return IntImm(self.dtype, wrap_int(~self.value, self.dtype))
        return Call(self.dtype, Op.get("tir.bitwise_not"), (self,))

    def __lshift__(self, other):
        return bitwise_call("tir.shift_left", self, other)

    def __rlshift__(self, other):
        return bitwise_call("tir.shift_left", other, self)

    def __rshift__(self, other):
        return bitwise_call("tir.shift_right", self, other)

    def __rrshift__(self, other):
        return bitwise_call("tir.shift_right", other, self)

    def __bool__(self):
        raise ValueError(
            f"cannot use the symbolic expression {self!r} as a Python bool; "
            "use tir.all / tir.any / tir.if_then_else, or compare with structural_equal"
        )

    def astype(self, dtype) -> PrimExpr:
        dtype = DataType(dtype)
        if self.dtype is dtype:
            return self
        if self.dtype.is_handle and not dtype.is_handle:
            raise DataTypeError(f"Can't cast a handle to other types: {self!r} to {dtype}")
        if self.dtype.is_scalar and dtype.is_vector:  # a scalar to a vector: cast, then broadcast
            return Broadcast(self.astype(dtype.element_of()), dtype.lanes)
        if isinstance(self, IntImm | FloatImm) and dtype.is_scalar:
            folded = fold_cast(self.value, dtype)
            if folded is not None:
                return folded
        return Cast(dtype, self)

    def equal(self, other) -> PrimExpr:
        return binary(EQ, self, other)



# The methods above build the node classes and call the construction helpers, which are
# defined in modules that subclass PrimExpr, so they are imported after the class.
from .expr_binary import EQ, GE, GT, LE, LT, NE, Add, And, Div, FloorDiv, FloorMod, Mul, Not, Or, Sub  # noqa: E402
from .expr_build import binary, bitwise_call, fold_cast, const, logic_or_bits, wrap_int  # noqa: E402
from .expr_compound import Broadcast, Call, Cast  # noqa: E402
from .expr_leaves import FloatImm, IntImm  # noqa: E402

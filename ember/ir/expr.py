"""Scalar expressions (PrimExpr) and their Python operators.

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
"""

from __future__ import annotations

import math

from ember.error import ConstantRangeError, DivisionByZeroError, TVMError
from ember.runtime.dtype import DataType

from .node import Node, node
from .op import Op

__all__ = [
    "PrimExpr", "IntImm", "FloatImm", "StringImm", "Var", "SizeVar", "PointerType",
    "BinaryOp", "Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max",
    "CmpOp", "EQ", "NE", "LT", "LE", "GT", "GE", "And", "Or", "Not",
    "Cast", "Select", "Ramp", "Broadcast", "Shuffle", "Let", "Call", "Range",
    "const", "convert", "as_expr", "binary", "promote",
]

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
        return _logic_or_bits(And, "tir.bitwise_and", self, other)

    def __rand__(self, other):
        return _logic_or_bits(And, "tir.bitwise_and", other, self)

    def __or__(self, other):
        return _logic_or_bits(Or, "tir.bitwise_or", self, other)

    def __ror__(self, other):
        return _logic_or_bits(Or, "tir.bitwise_or", other, self)

    def __xor__(self, other):
        return _bits("tir.bitwise_xor", self, other)

    def __rxor__(self, other):
        return _bits("tir.bitwise_xor", other, self)

    def __invert__(self):
        if self.dtype.is_bool:
            return Not(self)
        if self.dtype.is_float:
            raise DataTypeError(f"bitwise_not needs an integer operand, got {self.dtype} ({self!r})")
        if isinstance(self, IntImm):
            return IntImm(self.dtype, wrap_int(~self.value, self.dtype))
        return Call(self.dtype, Op.get("tir.bitwise_not"), (self,))

    def __lshift__(self, other):
        return _bits("tir.shift_left", self, other)

    def __rlshift__(self, other):
        return _bits("tir.shift_left", other, self)

    def __rshift__(self, other):
        return _bits("tir.shift_right", self, other)

    def __rrshift__(self, other):
        return _bits("tir.shift_right", other, self)

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
            folded = _fold_cast(self.value, dtype)
            if folded is not None:
                return folded
        return Cast(dtype, self)

    def equal(self, other) -> PrimExpr:
        return binary(EQ, self, other)


# -- leaves -------------------------------------------------------------------------

@node
class IntImm(PrimExpr):
    dtype: DataType
    value: int

    def __post_init__(self):  # IntImm("bool", True) and IntImm("int32", 3), as in TVM
        if not isinstance(self.dtype, DataType):
            object.__setattr__(self, "dtype", DataType(self.dtype))
        if type(self.value) is not int:
            object.__setattr__(self, "value", int(self.value))

    def __int__(self):
        return int(self.value)

    def __index__(self):
        return int(self.value)

    def __bool__(self):
        return bool(self.value)

    def __float__(self):
        return float(self.value)


@node
class FloatImm(PrimExpr):
    dtype: DataType
    value: float

    def __post_init__(self):
        if not isinstance(self.dtype, DataType):
            object.__setattr__(self, "dtype", DataType(self.dtype))
        if not self.dtype.is_float:
            raise DataTypeError(f"FloatImm needs a float dtype, got {self.dtype} (value {self.value!r})")

    def __float__(self):
        return float(self.value)


@node
class StringImm(PrimExpr):
    value: str

    def __eq__(self, other):  # compares with Python strings (and other StringImms) by text, as TVM
        if isinstance(other, StringImm):
            return self.value == other.value
        if isinstance(other, str):
            return self.value == other
        return super().__eq__(other)

    def __ne__(self, other):
        if isinstance(other, StringImm | str):
            return not self == other
        return super().__ne__(other)

    __hash__ = PrimExpr.__hash__

    @property
    def dtype(self) -> DataType:
        return HANDLE


@node
class PointerType(Node):
    """Type annotation of a handle Var that points at ``element_dtype`` data in ``storage_scope``."""

    element_dtype: DataType
    storage_scope: str = "global"

    def __post_init__(self):  # PointerType(PrimType("float32"), scope), as TVM spells it
        dtype = self.element_dtype
        if not isinstance(dtype, str | DataType) and hasattr(dtype, "dtype"):  # a PrimType
            dtype = dtype.dtype
        if not isinstance(dtype, DataType):
            dtype = DataType(dtype)
        object.__setattr__(self, "element_dtype", dtype)
        if not self.storage_scope:
            object.__setattr__(self, "storage_scope", "global")

    @property
    def element_type(self):
        """TVM's view: the pointee as a ``PrimType``."""
        from .type import PrimType

        return PrimType(self.element_dtype)


@node
class Var(PrimExpr):
    """A symbolic scalar; identity matters (two Vars named ``n`` are different)."""

    name: str
    dtype: DataType = INT32
    type_annotation: PointerType | None = None

    _binding = True
    _ignore_fields = ("name",)

    def __init__(self, name: str = "v", dtype=INT32, type_annotation: PointerType | None = None):
        if isinstance(dtype, PointerType):  # Var("p", PointerType(PrimType("float32"))), as TVM
            dtype, type_annotation = HANDLE, dtype
        elif not isinstance(dtype, str | DataType) and hasattr(dtype, "dtype"):  # a PrimType
            dtype = dtype.dtype
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "dtype", DataType(dtype))
        object.__setattr__(self, "type_annotation", type_annotation)

    @property
    def name_hint(self) -> str:
        return self.name


class SizeVar(Var):
    """A Var known to be non-negative (a shape dimension)."""

    __slots__ = ()


# -- arithmetic ------------------------------------------------------------------

_PY_SCALARS = (bool, int, float)  # a tuple: an ``A | B`` union would be built at every node


@node
class BinaryOp(PrimExpr):
    a: PrimExpr
    b: PrimExpr

    def __post_init__(self):  # Add(i, 0): a Python number takes the other operand's dtype
        a, b = self.a, self.b
        if isinstance(b, _PY_SCALARS) and isinstance(a, PrimExpr):
            object.__setattr__(self, "b", as_expr(b, a.dtype))
        elif isinstance(a, _PY_SCALARS) and isinstance(b, PrimExpr):
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


# -- others ----------------------------------------------------------------------

@node
class Cast(PrimExpr):
    dtype: DataType
    value: PrimExpr

    def __post_init__(self):  # Cast("float32", x) and Cast("int8", 3), as TVM accepts
        if not isinstance(self.dtype, DataType):
            object.__setattr__(self, "dtype", DataType(self.dtype))
        if isinstance(self.value, _PY_SCALARS):
            object.__setattr__(self, "value", as_expr(self.value))


@node
class Select(PrimExpr):
    """``true_value if condition else false_value``, both sides evaluated."""

    condition: PrimExpr
    true_value: PrimExpr
    false_value: PrimExpr

    def __post_init__(self):  # Select(c, y, 0): a Python number takes the other branch's dtype
        t, f = self.true_value, self.false_value
        if isinstance(f, _PY_SCALARS) and isinstance(t, PrimExpr):
            object.__setattr__(self, "false_value", as_expr(f, t.dtype))
        elif isinstance(t, _PY_SCALARS) and isinstance(f, PrimExpr):
            object.__setattr__(self, "true_value", as_expr(t, f.dtype))
        elif isinstance(t, _PY_SCALARS) and isinstance(f, _PY_SCALARS):
            object.__setattr__(self, "true_value", as_expr(t))
            object.__setattr__(self, "false_value", as_expr(f))

    @property
    def dtype(self) -> DataType:
        return self.true_value.dtype


def vector_lanes(lanes):
    """A Ramp's or Broadcast's lane count: a Python int, or for a scalable vector the
    expression ``vscale() * k`` (``k * vscale()`` is put in that order); anything else
    (``vscale() + 3``, a bare ``vscale()``) is refused."""
    if isinstance(lanes, IntImm):
        return int(lanes.value)
    if not isinstance(lanes, PrimExpr):
        return lanes
    from ember.runtime.dtype import _vscale_factor

    try:
        factor = _vscale_factor(lanes)
    except ValueError:
        raise DataTypeError(f"vector lanes must be an int or vscale() * k, got {lanes!r}") from None
    return scalable_lanes(factor) if not isinstance(lanes.b, IntImm) else lanes


def scalable_lanes(factor: int) -> PrimExpr:
    """The lanes ``vscale() * factor`` of a scalable vector."""
    return Mul(Call(INT32, Op.get("tir.vscale"), ()), IntImm(INT32, int(factor)))


@node
class Ramp(PrimExpr):
    """The vector ``[base, base + stride, …]`` of ``lanes`` elements."""

    base: PrimExpr
    stride: PrimExpr
    lanes: int

    def __post_init__(self):  # Ramp(x, 1, 4) and Ramp(0, 1, 4): Python numbers become IntImms
        base, stride = self.base, self.stride
        if not isinstance(base, PrimExpr):
            base = as_expr(base, stride.dtype) if isinstance(stride, PrimExpr) else as_expr(base)
            object.__setattr__(self, "base", base)
        if not isinstance(stride, PrimExpr):
            object.__setattr__(self, "stride", as_expr(stride, base.dtype))
        object.__setattr__(self, "lanes", vector_lanes(self.lanes))

    @property
    def dtype(self) -> DataType:
        return self.base.dtype.with_lanes(self.lanes)


@node
class Broadcast(PrimExpr):
    value: PrimExpr
    lanes: int

    def __post_init__(self):  # Broadcast(0, 4): a Python number becomes an IntImm / FloatImm
        if not isinstance(self.value, PrimExpr):
            object.__setattr__(self, "value", as_expr(self.value))
        object.__setattr__(self, "lanes", vector_lanes(self.lanes))

    @property
    def dtype(self) -> DataType:
        return self.value.dtype.with_lanes(self.lanes)


@node
class Shuffle(PrimExpr):
    """The lanes ``indices`` picks from the concatenation of ``vectors`` (TVM's Shuffle)."""

    vectors: tuple
    indices: tuple

    def __post_init__(self):
        object.__setattr__(self, "vectors", tuple(as_expr(v) for v in self.vectors))
        object.__setattr__(self, "indices", tuple(as_expr(i) for i in self.indices))

    @property
    def dtype(self) -> DataType:
        return self.vectors[0].dtype.element_of().with_lanes(len(self.indices))


@node
class Let(PrimExpr):
    _def_fields = ("var",)  # structural equality: where the variable is defined

    var: Var
    value: PrimExpr
    body: PrimExpr

    def __post_init__(self):  # Let(x, 1, x + 1): a Python number takes the variable's dtype
        if isinstance(self.value, _PY_SCALARS):
            object.__setattr__(self, "value", as_expr(self.value, self.var.dtype))

    @property
    def dtype(self) -> DataType:
        return self.body.dtype


@node
class Call(PrimExpr):
    """A call of an intrinsic ``Op`` (or a ``GlobalVar``) returning ``dtype``."""

    dtype: DataType
    op: Node
    args: tuple

    def __post_init__(self):  # Call("float32", "tir.call_extern", [...]), as TVM's constructor takes
        if type(self.dtype) is not DataType:
            object.__setattr__(self, "dtype", DataType(self.dtype))
        if type(self.op) is str:
            object.__setattr__(self, "op", Op.get(self.op))
        if type(self.args) is not tuple:
            object.__setattr__(self, "args", tuple(self.args))


@node
class Range(Node):
    """The half-open interval ``[min, min + extent)``."""

    min: PrimExpr
    extent: PrimExpr

    def __init__(self, min=None, extent=None, *, begin=None, end=None, span=None):  # noqa: A002
        if begin is not None or end is not None:  # TVM's keywords: [begin, end)
            if min is not None or extent is not None:
                raise TypeError("Range: give either (min, extent) or begin=/end=, not both")
            if end is None:
                raise TypeError("Range: begin= needs end=")
            begin = 0 if begin is None else begin
            min, extent = begin, as_expr(end) - as_expr(begin) if not (
                isinstance(begin, int) and isinstance(end, int)) else end - begin
        if min is None:
            raise TypeError("Range: expected an extent, (min, extent), or begin=/end=")
        if extent is None:  # Range(n) is [0, n)
            min, extent = 0, min
        # a constant bound takes the other bound's int dtype (Range(0, n) with an int64 n is int64)
        min, extent = _range_bound(min, extent), _range_bound(extent, min)
        object.__setattr__(self, "min", as_expr(min))
        object.__setattr__(self, "extent", as_expr(extent))

    @staticmethod
    def from_min_extent(min, extent) -> Range:  # noqa: A002
        return Range(min, extent)


def _range_bound(bound, other):
    """A constant ``bound`` in ``other``'s int dtype (unless ``other`` is a narrower constant)."""
    if not isinstance(other, PrimExpr) or not other.dtype.is_integer:
        return bound
    if isinstance(bound, IntImm):
        if isinstance(other, IntImm) and other.dtype.bits <= bound.dtype.bits:
            return bound
        bound = bound.value
    if isinstance(bound, int) and not isinstance(bound, bool):
        return const(bound, other.dtype)
    return bound


# -- construction helpers --------------------------------------------------------

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_FLOAT32_MAX = 3.4028234663852886e38
_FLOAT_LIMITS = {16: 65504.0, 32: _FLOAT32_MAX}  # TVM range-checks float16 and float32 literals


def int_range(dtype: DataType) -> tuple[int, int]:
    """The values an integer dtype holds: ``[lo, hi]``."""
    bits = dtype.bits
    return (0, 2**bits - 1) if dtype.is_uint else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def _fold_cast(value, dtype: DataType):
    """A constant cast to ``dtype`` as the hardware converts it (integers wrap, floats to
    integers truncate); None when that is not a finite value of ``dtype``."""
    try:
        if dtype.is_bool:
            return IntImm(dtype, int(value != 0))
        if dtype.is_integer:
            return IntImm(dtype, wrap_int(int(value), dtype))
        if dtype.is_float:
            return const(float(value), dtype)
    except (OverflowError, ValueError, TVMError):
        return None
    return None


def wrap_int(value: int, dtype: DataType) -> int:
    """``value`` reduced to ``dtype``'s width, two's complement (what C and LLVM compute)."""
    bits = dtype.bits
    value &= (1 << bits) - 1
    if not dtype.is_uint and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def const(value, dtype=None) -> PrimExpr:
    """A constant of ``dtype`` (inferred from the Python type when omitted)."""
    if dtype is None:
        if hasattr(value, "dtype") and hasattr(value, "item"):  # a numpy scalar keeps its dtype
            dtype, value = str(value.dtype), value.item()
        elif isinstance(value, bool):
            dtype = BOOL
        elif isinstance(value, int):
            dtype = INT32 if _INT32_MIN <= value <= _INT32_MAX else INT64
        elif isinstance(value, float):  # beyond float32's range (and finite): float64
            dtype = FLOAT32 if not math.isfinite(value) or abs(value) <= _FLOAT32_MAX else DataType("float64")
        else:
            raise TypeError(f"cannot make a constant from {value!r} of type {type(value).__name__}")
    elif hasattr(value, "dtype") and hasattr(value, "item"):
        value = value.item()
    dtype = DataType(dtype)
    if dtype.is_vector:
        return Broadcast(const(value, dtype.element_of()), dtype.lanes)
    if dtype.is_float:
        value = float(value)
        limit = _FLOAT_LIMITS.get(dtype.bits) if str(dtype).startswith("float") else None
        if limit is not None and math.isfinite(value) and abs(value) > limit:
            raise ConstantRangeError(f"the literal {value!r} is outside the range of {dtype} (|x| <= {limit})")
        return FloatImm(dtype, value)
    if dtype.is_bool:
        return IntImm(dtype, int(bool(value)))
    if dtype.is_integer:
        if isinstance(value, float) and not value.is_integer():
            raise TypeError(f"cannot make an {dtype} constant from the non-integral {value!r}")
        low, high = int_range(dtype)
        if not low <= int(value) <= high:
            raise ConstantRangeError(f"the literal {int(value)} is outside the range of {dtype} [{low}, {high}]")
        return IntImm(dtype, int(value))
    raise TypeError(f"cannot make a constant of type {dtype}")


def as_expr(value, dtype=None) -> PrimExpr:
    """Convert Python numbers (and numpy scalars) to constants; pass PrimExprs through."""
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, bool | int | float):
        return const(value, dtype)
    if hasattr(value, "dtype") and hasattr(value, "item"):  # numpy scalar
        return const(value.item(), dtype if dtype is not None else str(value.dtype))
    if hasattr(value, "as_prim_expr"):
        return value.as_prim_expr()
    raise TypeError(f"expected a PrimExpr or a Python number, got {type(value).__name__}: {value!r}")


convert = as_expr


def _rank(dtype: DataType) -> tuple:
    return (dtype.is_float, dtype.bits if not dtype.is_bool else 0)


def promote(a, b) -> tuple[PrimExpr, PrimExpr]:
    """Bring two operands to one dtype: Python numbers take the other side's type."""
    if not isinstance(a, PrimExpr | bool | int | float):
        a = as_expr(a)  # IterVars and other objects that stand for an expression
    if not isinstance(b, PrimExpr | bool | int | float):
        b = as_expr(b)
    if not isinstance(a, PrimExpr):
        if not isinstance(b, PrimExpr):
            a = as_expr(a)
        else:
            a = _literal(a, b.dtype)  # a fraction against an int becomes a float: both promote below
            if a.dtype is b.dtype:
                return a, b
    if not isinstance(b, PrimExpr):
        b = _literal(b, a.dtype)
        if b.dtype is a.dtype:
            return a, b
    if a.dtype is b.dtype:
        return a, b
    ta, tb = a.dtype, b.dtype
    if ta.lanes != tb.lanes:
        if ta.lanes == 1:
            a = Broadcast(a, tb.lanes)
        elif tb.lanes == 1:
            b = Broadcast(b, ta.lanes)
        else:
            raise TypeError(f"cannot combine vectors of {ta.lanes} and {tb.lanes} lanes")
        ta, tb = a.dtype, b.dtype
        if ta is tb:
            return a, b
    target = ta if _rank(ta) >= _rank(tb) else tb
    if ta.is_uint != tb.is_uint and ta.bits == tb.bits and not target.is_float:
        target = ta if ta.is_uint else tb  # int32 with uint32 → uint32, as in C and TVM
    return _cast_to(a, target), _cast_to(b, target)


def _literal(value, dtype: DataType) -> PrimExpr:
    if isinstance(value, PrimExpr):
        return value
    value = as_expr(value).value if not isinstance(value, bool | int | float) else value
    if isinstance(value, float) and not dtype.is_float:
        if not float(value).is_integer():
            return const(value, "float32" if dtype.bits <= 32 else "float64")
    return const(value, dtype)


def _cast_to(x: PrimExpr, dtype: DataType) -> PrimExpr:
    if x.dtype is dtype:
        return x
    if isinstance(x, IntImm | FloatImm) and dtype.lanes == 1:
        return const(x.value, dtype)
    return Cast(dtype, x)


_FOLD = {
    "Add": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "Mul": lambda a, b: a * b,
    "Min": min,
    "Max": max,
    "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b,
    "GT": lambda a, b: a > b,
    "GE": lambda a, b: a >= b,
    "EQ": lambda a, b: a == b,
    "NE": lambda a, b: a != b,
    "And": lambda a, b: bool(a) and bool(b),
    "Or": lambda a, b: bool(a) or bool(b),
}
_INT_FOLD = {
    "FloorDiv": lambda a, b: a // b,
    "FloorMod": lambda a, b: a % b,
    "Div": lambda a, b: (abs(a) // abs(b)) * (1 if (a >= 0) == (b >= 0) else -1),
    "Mod": lambda a, b: a - b * int(a / b),
}


def binary(cls, a, b) -> PrimExpr:
    """Build ``cls(a, b)`` after promotion; fold when both sides are constants."""
    a, b = promote(a, b)
    if cls is And or cls is Or:
        if not a.dtype.is_bool or not b.dtype.is_bool:
            raise DataTypeError(f"logical {cls.__name__} needs bool operands, got {a.dtype} and {b.dtype}")
    if isinstance(a, IntImm | FloatImm) and isinstance(b, IntImm | FloatImm):
        folded = _fold(cls.__name__, a, b)
        if folded is not None:
            return folded
    if (cls is EQ or cls is NE) and _is_vscale(a) and _is_vscale(b):  # one run-time constant
        return IntImm(BOOL, int(cls is EQ))
    return cls(a, b)


def _is_vscale(e) -> bool:
    return isinstance(e, Call) and getattr(e.op, "name", None) == "tir.vscale"


def _fold(name: str, a, b):
    fn = _FOLD.get(name)
    if fn is None:
        if isinstance(a, IntImm) and name in _INT_FOLD:
            fn = _INT_FOLD[name]
        elif isinstance(a, FloatImm) and name == "Div":
            fn = lambda x, y: x / y  # noqa: E731
        else:
            return None
        if b.value == 0:
            raise DivisionByZeroError(f"{name}({a.value}, {b.value}): division by a constant zero ({a.dtype})")
    if isinstance(a, FloatImm) and a.dtype.bits in (16, 32) and str(a.dtype).startswith("float"):
        import numpy as np  # float32 (float16) arithmetic: operands and result in that precision

        narrow = np.float32 if a.dtype.bits == 32 else np.float16
        with np.errstate(all="ignore"):
            value = float(narrow(fn(narrow(a.value), narrow(b.value))))
    else:
        value = fn(a.value, b.value)
    if name in ("LT", "LE", "GT", "GE", "EQ", "NE", "And", "Or"):
        return IntImm(BOOL, int(bool(value)))
    if isinstance(a, IntImm) and a.dtype.is_integer:
        return IntImm(a.dtype, wrap_int(int(value), a.dtype))  # integer overflow wraps, as in C
    if isinstance(a, FloatImm) and a.dtype.bits <= 32 and math.isfinite(value) and abs(value) > _FLOAT_LIMITS[a.dtype.bits]:
        return FloatImm(a.dtype, math.copysign(math.inf, value))  # overflow rounds to infinity, as the hardware does
    return const(value, a.dtype)


def _logic_or_bits(logic_cls, bit_op: str, a, b):
    a, b = promote(a, b)
    if a.dtype.is_bool and b.dtype.is_bool:
        return binary(logic_cls, a, b)
    return _bits(bit_op, a, b)


_BIT_FOLD = {
    "tir.bitwise_and": lambda a, b: a & b,
    "tir.bitwise_or": lambda a, b: a | b,
    "tir.bitwise_xor": lambda a, b: a ^ b,
    "tir.shift_left": lambda a, b: a << b,
    "tir.shift_right": lambda a, b: a >> b,
}


def _bits(op_name: str, a, b) -> PrimExpr:
    """A bitwise or shift intrinsic of two integer operands, folded when both are constants;
    float operands and constant shift amounts outside [0, bits) are refused."""
    a, b = promote(a, b)
    if not (a.dtype.is_integer or a.dtype.is_bool):
        raise DataTypeError(f"{op_name} needs integer operands, got {a.dtype} ({a!r}, {b!r})")
    if op_name.startswith("tir.shift") and isinstance(b, IntImm) and not 0 <= b.value < a.dtype.bits:
        raise DataTypeError(f"{op_name}: the shift amount {b.value} is outside [0, {a.dtype.bits}) for {a.dtype}")
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        return IntImm(a.dtype, wrap_int(_BIT_FOLD[op_name](a.value, b.value), a.dtype))
    return Call(a.dtype, Op.get(op_name), (a, b))

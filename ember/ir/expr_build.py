"""Building scalar expressions from Python values: constants (``const``, ``as_expr``),
operand promotion (``promote``: Python numbers take the other side's type, int → wider
int → float, scalars broadcast to vectors), and ``binary``, which folds two constants
(integers wrap, float32 rounds as float32) and nothing else (that is ``ember.arith``)."""

from __future__ import annotations

import math

from ember.error import ConstantRangeError, DivisionByZeroError, NullOperandError, TVMError
from ember.runtime.dtype import DataType

from .op import Op
from .prim_expr import BOOL, FLOAT32, INT32, INT64, DataTypeError, PrimExpr

__all__ = [
    "int_range", "fold_cast", "wrap_int", "const", "as_expr", "convert", "promote", "binary",
    "logic_or_bits", "bitwise_call",
]

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_FLOAT32_MAX = 3.4028234663852886e38
_FLOAT_LIMITS = {16: 65504.0, 32: _FLOAT32_MAX}  # TVM range-checks float16 and float32 literals


def int_range(dtype: DataType) -> tuple[int, int]:
    """The values an integer dtype holds: ``[lo, hi]``."""
    bits = dtype.bits
    return (0, 2**bits - 1) if dtype.is_uint else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def fold_cast(value, dtype: DataType):
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
    """``value`` reduced to ``dtype``'s width, two's complement (what C and LLVM compute);
    a bool is 0 or 1 (any non-zero value is true)."""
    if dtype.is_bool:
        return int(bool(value))
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
    if a is None or b is None:  # TVM: a ValueError ("the operand is null")
        raise NullOperandError(f"{cls.__name__}: an operand is None ({a!r}, {b!r})")
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


def logic_or_bits(logic_cls, bit_op: str, a, b):
    """``&`` / ``|``: the logical node on two bools, else the bitwise intrinsic."""
    a, b = promote(a, b)
    if a.dtype.is_bool and b.dtype.is_bool:
        return binary(logic_cls, a, b)
    return bitwise_call(bit_op, a, b)


_BIT_FOLD = {
    "tir.bitwise_and": lambda a, b: a & b,
    "tir.bitwise_or": lambda a, b: a | b,
    "tir.bitwise_xor": lambda a, b: a ^ b,
    "tir.shift_left": lambda a, b: a << b,
    "tir.shift_right": lambda a, b: a >> b,
}


def bitwise_call(op_name: str, a, b) -> PrimExpr:
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


# The node classes subclass PrimExpr and call ``as_expr``, so they are imported last.
from .expr_binary import EQ, NE, And, Or  # noqa: E402
from .expr_compound import Broadcast, Call, Cast  # noqa: E402
from .expr_leaves import FloatImm, IntImm  # noqa: E402

"""Simplifier rules for integer intrinsic calls with constant arguments.

``shift_left(1, 10)`` → ``1024``, ``bitwise_and(12, 10)`` → ``8``, ``clz(128)`` → ``24``
(``clz`` counts the leading zero bits of its argument's own width: 32 for an int32 zero,
64 for an int64 zero).  Results wrap to the call's dtype like machine integers.  Shifts
by a negative amount or by the full width or more are undefined in C and left alone.
``likely(True)`` is ``True`` (and ``likely(False)`` is ``False``).
"""

from __future__ import annotations

from ember.ir import Call, IntImm, PrimExpr

from .evaluate import wrap_int

__all__ = ["fold_int_intrinsic"]


def _shift_ok(a, b, bits) -> bool:
    return 0 <= b < bits


def _clz(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return bits - value.bit_length()


_BINARY = {
    "tir.shift_left": lambda a, b, bits: a << b if _shift_ok(a, b, bits) else None,
    "tir.shift_right": lambda a, b, bits: a >> b if _shift_ok(a, b, bits) else None,
    "tir.bitwise_and": lambda a, b, bits: a & b,
    "tir.bitwise_or": lambda a, b, bits: a | b,
    "tir.bitwise_xor": lambda a, b, bits: a ^ b,
}


def fold_int_intrinsic(s, e: Call) -> PrimExpr | None:
    """Fold a bit-manipulating intrinsic whose arguments are all integer constants."""
    name = getattr(e.op, "name", None)
    if name == "tir.likely" and len(e.args) == 1 and type(e.args[0]) is IntImm:
        return e.args[0]  # a hint about a known condition is that condition
    if not e.dtype.is_integer or not e.dtype.is_scalar:
        return None
    args = e.args
    if not args or not all(type(a) is IntImm and a.dtype.is_integer for a in args):
        return None
    fn = _BINARY.get(name)
    if fn is not None and len(args) == 2:
        value = fn(args[0].value, args[1].value, args[0].dtype.bits)
    elif name == "tir.bitwise_not" and len(args) == 1:
        value = ~args[0].value
    elif name == "tir.clz" and len(args) == 1:
        value = _clz(args[0].value, args[0].dtype.bits)
    elif name == "tir.popcount" and len(args) == 1:
        value = bin(args[0].value & ((1 << args[0].dtype.bits) - 1)).count("1")
    else:
        return None
    if value is None:
        return None
    return IntImm(e.dtype, wrap_int(value, e.dtype))

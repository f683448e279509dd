"""Legalisers of elementwise ops: unary math, binary arithmetic and comparisons
(numpy broadcasting), ``where``, ``clip`` and ``astype`` — each a topi call."""

from __future__ import annotations

from ember import topi
from ember.ir import PrimExpr

from ...expr import Constant
from ...expr import const as relax_const
from .common import Legalizer, emit_te, scalar_or_tensor

__all__ = ["TABLE"]


def _square(x):
    return topi.multiply(x, x)


def _rounding(fn):
    """ceil/floor/round/trunc: the identity on integers (as TVM's math intrinsics are)."""
    return lambda x: topi.identity(x) if not x.dtype.is_float else fn(x)


# relax op name → topi function of one tensor
UNARY = {
    "abs": topi.abs, "negative": topi.negative, "sign": topi.sign, "square": _square,
    "floor": _rounding(topi.floor), "ceil": _rounding(topi.ceil), "round": _rounding(topi.round),
    "trunc": _rounding(topi.trunc),
    "bitwise_not": topi.bitwise_not, "exp": topi.exp, "log": topi.log, "sqrt": topi.sqrt,
    "rsqrt": topi.rsqrt, "sin": topi.sin, "cos": topi.cos, "tan": topi.tan, "sinh": topi.sinh,
    "cosh": topi.cosh, "tanh": topi.tanh, "asin": topi.asin, "acos": topi.acos,
    "atan": topi.atan, "asinh": topi.asinh, "acosh": topi.acosh, "atanh": topi.atanh,
    "erf": topi.erf, "sigmoid": topi.sigmoid, "log1p": topi.log1p, "isnan": topi.isnan,
    "isinf": topi.isinf, "isfinite": topi.isfinite, "logical_not": topi.logical_not,
}

# relax op name → topi function of two operands (tensors or scalars); relax's ``mod``
# truncates like C's fmod, ``floor_mod`` rounds towards -inf like Python.
BINARY = {
    "add": topi.add, "subtract": topi.subtract, "multiply": topi.multiply,
    "divide": topi.divide, "floor_divide": topi.floor_divide, "power": topi.power,
    "maximum": topi.maximum, "minimum": topi.minimum, "mod": topi.trunc_mod,
    "floor_mod": topi.floor_mod, "bitwise_and": topi.bitwise_and, "bitwise_or": topi.bitwise_or,
    "bitwise_xor": topi.bitwise_xor, "left_shift": topi.left_shift,
    "right_shift": topi.right_shift, "equal": topi.equal, "not_equal": topi.not_equal,
    "less": topi.less, "less_equal": topi.less_equal, "greater": topi.greater,
    "greater_equal": topi.greater_equal, "logical_and": topi.logical_and,
    "logical_or": topi.logical_or, "logical_xor": topi.logical_xor,
}


# TVM names unary kernels "tir_<op>" (so that a kernel never shadows the libm symbol of
# the same name); erf keeps its own name there.
def _unary(fn, name: str) -> Legalizer:
    hint = name if name == "erf" else f"tir_{name}"
    return lambda bb, call: emit_te(bb, call, fn, call.args[0], primfunc_name_hint=hint)


def _binary(fn) -> Legalizer:
    def legalize(bb, call):
        a, b = (scalar_or_tensor(x) for x in call.args)
        if isinstance(a, PrimExpr) and isinstance(b, PrimExpr):  # keep one as a 0-d tensor
            a = call.args[0]
        return emit_te(bb, call, fn, a, b)

    return legalize


def _where(bb, call):
    cond, a, b = call.args
    return emit_te(bb, call, topi.where, cond, scalar_or_tensor(a), scalar_or_tensor(b))


def _clip(bb, call):
    x = call.args[0]
    lo, hi = call.attrs.min, call.attrs.max
    if not x.struct_info.dtype.is_float:
        lo, hi = int(lo), int(hi)
    return emit_te(bb, call, lambda t: topi.clip(t, lo, hi), x, primfunc_name_hint="tir_clip")


def _astype(bb, call):
    x, dtype = call.args[0], str(call.attrs.dtype)
    if isinstance(x, Constant) and x.numpy().ndim == 0:  # a scalar constant is cast now, as TVM
        try:
            return relax_const(x.numpy().astype(dtype), dtype)
        except TypeError:  # a dtype numpy does not know (bfloat16 without ml_dtypes): the kernel
            pass
    return emit_te(bb, call, topi.cast, x, dtype)


TABLE: dict[str, Legalizer] = {
    **{f"relax.{name}": _unary(fn, name) for name, fn in UNARY.items()},
    **{f"relax.{name}": _binary(fn) for name, fn in BINARY.items()},
    "relax.where": _where,
    "relax.clip": _clip,
    "relax.astype": _astype,
}

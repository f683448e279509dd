"""LowerIntrin: rewrite math intrinsics into the small set the code generators map.

After this pass the only ``tir.*`` calls left are (the contract with ``ember.codegen``):

* float math (float32 / float64, scalar or vector): exp, exp2, log, log2, log10, sqrt,
  sin, cos, tan, tanh, fabs, floor, ceil, trunc, nearbyint, pow, fmod, erf, atan,
  atan2, asin, acos, sinh, cosh, log1p, expm1, copysign;
* tests and bits: isnan, isinf, isfinite, popcount, clz, bitwise_and / or / xor / not,
  shift_left, shift_right;
* control and escapes: if_then_else, likely, reinterpret, call_extern,
  call_pure_extern, call_llvm_intrin, call_llvm_pure_intrin;
* structural intrinsics other layers emit and the codegens handle themselves (not
  math): ret, address_of, tvm_access_ptr, tvm_storage_sync, tvm_thread_allreduce,
  vectorhigh, vectorlow, vectorcombine, start/end_profile_intrinsic.

Rewrites (a table, name → rule): sigmoid → 1/(1+exp(-x)); rsqrt → 1/sqrt(x);
exp10 → exp(x·ln10); round → nearbyint (round half to even, like numpy); asinh,
acosh, atanh through log and sqrt; hypot, ldexp, nextafter → libm via
call_pure_extern; fabs of an integer → select; float16 / bfloat16 math → computed in
float32 and cast back (libm has no half-precision functions).  ``Evaluate(assume(c))``
statements are dropped.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ember.ir import Call, Cast, DataType, Op, PrimExpr, Select, StringImm, const
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator
from ..stmt import Evaluate
from ._common import make_pass, no_op

__all__ = ["lower_intrin", "LowerIntrin", "CODEGEN_INTRINSICS", "STRUCTURAL_INTRINSICS"]

FLOAT_MATH = frozenset({
    "exp", "exp2", "log", "log2", "log10", "sqrt", "sin", "cos", "tan", "tanh", "fabs",
    "floor", "ceil", "trunc", "nearbyint", "pow", "fmod", "erf", "atan", "atan2", "asin",
    "acos", "sinh", "cosh", "log1p", "expm1", "copysign",
})
CODEGEN_INTRINSICS = FLOAT_MATH | {
    "isnan", "isinf", "isfinite", "popcount", "clz", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "shift_left", "shift_right", "if_then_else", "likely",
    "reinterpret", "call_extern", "call_pure_extern", "call_llvm_intrin",
    "call_llvm_pure_intrin",
}
STRUCTURAL_INTRINSICS = frozenset({
    "ret", "address_of", "tvm_access_ptr", "tvm_storage_sync", "tvm_thread_allreduce",
    "vectorhigh", "vectorlow", "vectorcombine", "start_profile_intrinsic",
    "end_profile_intrinsic",
})
_HALF_PROMOTED = FLOAT_MATH | {
    "exp10", "sigmoid", "rsqrt", "round", "asinh", "acosh", "atanh", "hypot", "nextafter",
}


def _call(name: str, dtype: DataType, *args) -> Call:
    return Call(dtype, Op.get("tir." + name), tuple(args))


def _one(dtype: DataType) -> PrimExpr:
    return const(1.0, dtype)


def _libm(name: str):
    def rule(call: Call):
        suffix = "f" if call.dtype.bits == 32 else ""
        if call.dtype.lanes > 1:
            return None  # keep vector calls for the codegen to scalarise
        return Call(call.dtype, Op.get("tir.call_pure_extern"), (StringImm(name + suffix),) + call.args)

    return rule


def _ldexp(call: Call):
    if call.dtype.lanes > 1:
        return None
    x, e = call.args
    e = e if e.dtype.is_int and e.dtype.bits == 32 else Cast(DataType("int32"), e)
    suffix = "f" if call.dtype.bits == 32 else ""
    return Call(call.dtype, Op.get("tir.call_pure_extern"), (StringImm("ldexp" + suffix), x, e))


def _fabs(call: Call):
    (x,) = call.args
    if x.dtype.is_float:
        return None
    if x.dtype.is_uint or x.dtype.is_bool:
        return x
    return Select(x < const(0, x.dtype), -x, x)


def _asinh(call):
    (x,) = call.args
    t = call.dtype
    return _call("log", t, x + _call("sqrt", t, x * x + _one(t)))


def _acosh(call):
    (x,) = call.args
    t = call.dtype
    return _call("log", t, x + _call("sqrt", t, x * x - _one(t)))


def _atanh(call):
    (x,) = call.args
    t = call.dtype
    return const(0.5, t) * _call("log", t, (_one(t) + x) / (_one(t) - x))


# intrinsic name → rule(call) returning the replacement, or None to keep the call
RULES: dict[str, Callable[[Call], PrimExpr | None]] = {
    "sigmoid": lambda c: _one(c.dtype) / (_one(c.dtype) + _call("exp", c.dtype, -c.args[0])),
    "rsqrt": lambda c: _one(c.dtype) / _call("sqrt", c.dtype, c.args[0]),
    "exp10": lambda c: _call("exp", c.dtype, c.args[0] * const(math.log(10.0), c.dtype)),
    "round": lambda c: _call("nearbyint", c.dtype, c.args[0]),
    "asinh": _asinh,
    "acosh": _acosh,
    "atanh": _atanh,
    "hypot": _libm("hypot"),
    "nextafter": _libm("nextafter"),
    "ldexp": _ldexp,
    "fabs": _fabs,
}


def _promote_half(call: Call, name: str) -> PrimExpr | None:
    """Compute 16-bit float math in float32; returns None when not applicable."""
    dtype = call.dtype
    if not (dtype.is_float and dtype.bits == 16 and name in _HALF_PROMOTED):
        return None
    wide = DataType.make(2, 32, dtype.lanes)  # float32 with the same lanes
    args = tuple(
        Cast(wide.with_lanes(a.dtype.lanes), a) if a.dtype.is_float and a.dtype.bits == 16 else a
        for a in call.args
    )
    return Cast(dtype, Call(wide, call.op, args))


class _IntrinLowerer(IRMutator):
    def visit_Call(self, call: Call):
        call = self.generic_visit(call)
        op = call.op
        if not isinstance(op, Op) or not op.name.startswith("tir."):
            return call
        name = op.name[4:]
        promoted = _promote_half(call, name)
        if promoted is not None:
            return self.visit(promoted)
        rule = RULES.get(name)
        if rule is None:
            return call
        out = rule(call)
        if out is None:
            return call
        return self.visit(out) if out is not call else call

    def visit_Evaluate(self, stmt: Evaluate):
        value = stmt.value
        if isinstance(value, Call) and isinstance(value.op, Op) and value.op.name == "tir.assume":
            return no_op()
        return self.generic_visit(stmt)


def lower_intrin(func: PrimFunc) -> PrimFunc:
    """Rewrite ``func``'s intrinsic calls into the codegen's table (see module docstring)."""
    return func.with_body(_IntrinLowerer().visit(func.body))


def LowerIntrin() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`lower_intrin`."""
    return make_pass(lower_intrin, "tir.LowerIntrin")

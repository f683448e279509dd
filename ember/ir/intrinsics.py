"""The TIR intrinsic operators every layer may call, registered once.

Each entry says how many arguments the intrinsic takes (``None``: any number) and
whether it is pure; the code generators map these names to machine instructions or
libm calls.
"""

from __future__ import annotations

from .op import register_op

# name → number of arguments (None = variadic)
_UNARY_MATH = (
    "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt",
    "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh",
    "atanh", "sigmoid", "erf", "fabs", "floor", "ceil", "round", "nearbyint", "trunc",
    "isnan", "isinf", "isfinite", "popcount", "clz", "bitwise_not",
)
_BINARY_MATH = (
    "pow", "fmod", "atan2", "copysign", "hypot", "ldexp", "nextafter",
    "bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right",
)
_OTHER = {
    "if_then_else": 3,
    "likely": 1,
    "reinterpret": 1,
    "assume": 1,
    "call_extern": None,
    "call_pure_extern": None,
    "call_llvm_intrin": None,
    "call_llvm_pure_intrin": None,
    "ret": 1,
    "address_of": 1,
    "tvm_access_ptr": 5,
    "tvm_thread_allreduce": None,
    "tvm_storage_sync": None,
    "vectorhigh": 2,
    "vectorlow": 2,
    "vectorcombine": 2,
    "start_profile_intrinsic": 1,
    "end_profile_intrinsic": 1,
}
_IMPURE = {"call_extern", "call_llvm_intrin", "ret", "assume", "tvm_storage_sync", "tvm_thread_allreduce"}

for _name in _UNARY_MATH:
    register_op("tir." + _name, num_inputs=1, pure=True)
for _name in _BINARY_MATH:
    register_op("tir." + _name, num_inputs=2, pure=True)
for _name, _n in _OTHER.items():
    register_op("tir." + _name, num_inputs=_n, pure=_name not in _IMPURE)

UNARY_MATH = _UNARY_MATH
BINARY_MATH = _BINARY_MATH

"""CUDA C spelling of lowered-TIR expressions: types, literals, operators, intrinsics, vectors.

``CudaExprPrinter.expr(e)`` returns C text for a scalar expression or a vector of a
type CUDA has (``float4``, ``half2`` ...); ``lane(e, i)`` returns lane ``i`` of any
vector expression, which is how vector arithmetic is written (CUDA's vector types have
no arithmetic operators).  Tables map dtypes to C types and TIR intrinsics to CUDA
functions; ``fast_math`` picks the ``__expf``-style hardware approximations.
"""

from __future__ import annotations

import math
import re

from ember.arith import Analyzer
from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, Call, Cast, DataType, Div, FloatImm, FloorDiv, FloorMod,
    IntImm, Let, Max, Min, Mod, Mul, Not, Op, Or, Ramp, Select, StringImm, Sub, Var,
)
from ember.tir import BufferLoad

from .split_host_device import GpuCodegenError
from .wmma import WMMA_CALLS, print_wmma_call

__all__ = ["CudaExprPrinter", "c_type", "vector_type", "NameTable"]

_SCALAR_TYPES = {
    "bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short", "uint16": "unsigned short",
    "int32": "int", "uint32": "unsigned int", "int64": "long long", "uint64": "unsigned long long",
    "float16": "half", "bfloat16": "nv_bfloat16", "float32": "float", "float64": "double", "handle": "void*",
}
# element dtype -> CUDA vector type prefix and the lane counts it exists for
_VECTOR_TYPES = {
    "float32": ("float", (2, 3, 4)), "float64": ("double", (2,)), "int32": ("int", (2, 3, 4)),
    "uint32": ("uint", (2, 3, 4)), "int8": ("char", (2, 4)), "uint8": ("uchar", (2, 4)),
    "int16": ("short", (2, 4)), "uint16": ("ushort", (2, 4)), "int64": ("longlong", (2,)),
    "float16": ("half", (2,)), "bfloat16": ("nv_bfloat16", (2,)),
}
_MAKE_VECTOR = {"half2": "__halves2half2", "nv_bfloat162": "__halves2bfloat162"}
_LANE_FIELDS = "xyzw"

_BINARY = {Add: "+", Sub: "-", Mul: "*", EQ: "==", NE: "!=", LT: "<", LE: "<=", GT: ">", GE: ">=",
           And: "&&", Or: "||"}
_BITWISE = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "shift_left": "<<", "shift_right": ">>"}
# float math: TIR name -> (float32 spelling, float64 spelling, fast-math float32 spelling)
_MATH = {name: (name + "f", name, name + "f") for name in (
    "exp", "exp2", "log", "log2", "log10", "sqrt", "sin", "cos", "tan", "tanh", "floor", "ceil", "trunc",
    "pow", "fmod", "erf", "atan", "atan2", "asin", "acos", "sinh", "cosh", "log1p", "expm1", "copysign")}
_MATH["fabs"] = ("fabsf", "fabs", "fabsf")
_MATH["nearbyint"] = ("rintf", "rint", "rintf")
for _name in ("exp", "log", "sin", "cos", "tan", "log2", "log10", "exp10"):
    if _name in _MATH:
        _MATH[_name] = (_MATH[_name][0], _MATH[_name][1], f"__{_name}f")
_MATH["pow"] = ("powf", "pow", "__powf")
_REINTERPRET = {("float32", "int32"): "__float_as_int", ("int32", "float32"): "__int_as_float",
                ("float32", "uint32"): "__float_as_uint", ("uint32", "float32"): "__uint_as_float",
                ("float64", "int64"): "__double_as_longlong", ("int64", "float64"): "__longlong_as_double",
                ("float16", "int16"): "__half_as_short", ("int16", "float16"): "__short_as_half",
                ("float16", "uint16"): "__half_as_ushort", ("uint16", "float16"): "__ushort_as_half",
                ("bfloat16", "int16"): "__bfloat16_as_short", ("int16", "bfloat16"): "__short_as_bfloat16",
                ("bfloat16", "uint16"): "__bfloat16_as_ushort", ("uint16", "bfloat16"): "__ushort_as_bfloat16"}
_C_KEYWORDS = frozenset(
    "auto bool break case char const continue default do double else enum extern float for goto if inline int "
    "long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile "
    "while class new delete this template typename namespace using half nv_bfloat16 min max threadIdx blockIdx "
    "blockDim gridDim warpSize main".split())


def c_type(dtype: DataType) -> str:
    """The C type of a scalar dtype, or of a vector dtype CUDA has a type for."""
    if dtype.lanes > 1:
        vt = vector_type(dtype)
        if vt is None:
            raise GpuCodegenError(f"CUDA has no vector type for {dtype}; vectorize by 2 or 4 lanes of 32-bit "
                                  "or by 2 lanes of float16/bfloat16")
        return vt
    name = _SCALAR_TYPES.get(str(dtype))
    if name is None:
        raise GpuCodegenError(f"the CUDA code generator does not support dtype {dtype}")
    return name


def vector_type(dtype: DataType) -> str | None:
    entry = _VECTOR_TYPES.get(str(dtype.element_of()))
    if entry is None or dtype.lanes not in entry[1]:
        return None
    return f"{entry[0]}{dtype.lanes}"


class NameTable:
    """Unique C identifiers for Vars (``i``, ``i_1`` ...), stable per Var object."""

    def __init__(self, reserved=()):
        self._by_var: dict[int, str] = {}
        self._taken: set[str] = set(reserved)

    def __call__(self, var: Var) -> str:
        name = self._by_var.get(id(var))
        if name is None:
            name = self.fresh(var.name)
            self._by_var[id(var)] = name
        return name

    def fresh(self, hint: str) -> str:
        base = re.sub(r"\W", "_", hint) or "v"
        if base[0].isdigit() or base in _C_KEYWORDS or base.startswith("__"):
            base = "v_" + base
        name, n = base, 0
        while name in self._taken:
            n += 1
            name = f"{base}_{n}"
        self._taken.add(name)
        return name


class CudaExprPrinter:
    """Prints expressions; ``uses`` collects the headers the printed text needs."""

    def __init__(self, names: NameTable, fast_math: bool = False):
        self.names = names
        self.fast_math = fast_math
        self.analyzer = Analyzer()
        self.uses: set[str] = set()
        self.hoisted: dict[int, str] = {}  # id(vector BufferLoad) -> name of a vector temporary

    # -- types and literals ------------------------------------------------------------------
    def ctype(self, dtype: DataType) -> str:
        elem = str(dtype.element_of())
        if elem == "float16":
            self.uses.add("fp16")
        elif elem == "bfloat16":
            self.uses.add("bf16")
        return c_type(dtype)

    def literal(self, e) -> str:
        dtype = e.dtype
        if isinstance(e, IntImm):
            if dtype.is_bool:
                return "true" if e.value else "false"
            if dtype.is_float:
                return self.literal(FloatImm(dtype, float(e.value)))
            suffix = {"int64": "LL", "uint64": "ULL", "uint32": "U"}.get(str(dtype), "")
            text = f"{e.value}{suffix}"
            if str(dtype) not in ("int32", "int64", "uint32", "uint64"):
                return f"(({self.ctype(dtype)}){text})"
            return f"({text})" if e.value < 0 else text
        value = float(e.value)
        bits = dtype.bits
        if math.isnan(value) or math.isinf(value):
            text = "__int_as_float(0x7fc00000)" if math.isnan(value) else (
                "__int_as_float(0x7f800000)" if value > 0 else "__int_as_float(0xff800000)")
            if bits == 64:
                text = f"((double){text})"
        else:
            text = repr(value)
            if "e" not in text and "." not in text:
                text += ".0"
            if bits != 64:
                text += "f"
        if bits == 16:
            return f"(({self.ctype(dtype)}){text})"
        return f"({text})" if value < 0 else text

    # -- expressions -------------------------------------------------------------------------
    def expr(self, e) -> str:
        """C text of ``e`` (a scalar, or a vector of a CUDA vector type)."""
        if e.dtype.lanes > 1 and not isinstance(e, Var):
            return self.vector(e)
        return self.scalar(e)

    def vector(self, e) -> str:
        vt = self.ctype(e.dtype)
        if isinstance(e, BufferLoad):
            ptr = self.contiguous_pointer(e.buffer, e.indices[0], e.dtype.lanes)
            if ptr is not None:
                return f"(*({vt}*)({ptr}))"
        lanes = ", ".join(self.lane(e, i) for i in range(e.dtype.lanes))
        return f"{_MAKE_VECTOR.get(vt, 'make_' + vt)}({lanes})"

    def contiguous_pointer(self, buffer, index, lanes: int) -> str | None:
        """``A + base`` when ``index`` is ``Ramp(base, 1, lanes)`` with ``base`` a multiple of lanes."""
        if not (isinstance(index, Ramp) and isinstance(index.stride, IntImm) and index.stride.value == 1):
            return None
        if vector_type(buffer.dtype.with_lanes(lanes)) is None:
            return None
        mod = self.analyzer.modular_set(index.base)
        if mod.coeff % lanes or mod.base % lanes:
            return None
        return f"{self.names(buffer.data)} + {self.scalar(index.base)}"

    def lane(self, e, i: int) -> str:
        """Lane ``i`` of a vector expression (a scalar expression is the same in every lane)."""
        if e.dtype.lanes == 1:
            return self.scalar(e)
        if isinstance(e, Ramp):
            if not i:
                return self.scalar(e.base)
            step = f"{e.stride.value * i}" if isinstance(e.stride, IntImm) else f"{self.scalar(e.stride)} * {i}"
            return f"({self.scalar(e.base)} + {step})"
        if isinstance(e, Broadcast):
            return self.scalar(e.value)
        if isinstance(e, Var):
            return f"{self.names(e)}.{_LANE_FIELDS[i]}"
        if isinstance(e, BufferLoad):
            temp = self.hoisted.get(id(e))
            if temp is not None:
                return f"{temp}.{_LANE_FIELDS[i]}"
            return f"{self.names(e.buffer.data)}[{self.lane(e.indices[0], i)}]"
        if isinstance(e, Cast):
            return self.cast(e.dtype.element_of(), e.value.dtype.element_of(), self.lane(e.value, i))
        if isinstance(e, Select):
            return f"({self.lane(e.condition, i)} ? {self.lane(e.true_value, i)} : {self.lane(e.false_value, i)})"
        if isinstance(e, Not):
            return f"(!{self.lane(e.a, i)})"
        if isinstance(e, Call):
            args = [a if isinstance(a, StringImm) else self.lane(a, i) for a in e.args]
            return self.call(e, args, e.dtype.element_of(), [a.dtype.element_of() for a in e.args])
        if hasattr(e, "a") and hasattr(e, "b"):
            return self.binary(e, self.lane(e.a, i), self.lane(e.b, i), e.a.dtype.element_of())
        raise GpuCodegenError(f"the CUDA code generator cannot split {type(e).__name__} of {e.dtype} into lanes")

    def scalar(self, e) -> str:
        if isinstance(e, IntImm | FloatImm):
            return self.literal(e)
        if isinstance(e, Var):
            return self.names(e)
        if isinstance(e, BufferLoad):
            if len(e.indices) != 1:
                raise GpuCodegenError(f"load from {e.buffer.name!r} is not flat; run FlattenBuffer")
            return f"{self.names(e.buffer.data)}[{self.scalar(e.indices[0])}]"
        if isinstance(e, Cast):
            return self.cast(e.dtype, e.value.dtype, self.expr(e.value))
        if isinstance(e, Select):
            return f"({self.scalar(e.condition)} ? {self.scalar(e.true_value)} : {self.scalar(e.false_value)})"
        if isinstance(e, Not):
            return f"(!{self.scalar(e.a)})"
        if isinstance(e, Let):
            t = self.ctype(e.var.dtype)
            return f"([&]() {{ {t} {self.names(e.var)} = {self.expr(e.value)}; return {self.expr(e.body)}; }})()"
        if isinstance(e, Call):
            return self.call(e, [self.expr(a) if not isinstance(a, StringImm) else a for a in e.args],
                             e.dtype, [a.dtype for a in e.args])
        if isinstance(e, StringImm):
            return '"' + e.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if hasattr(e, "a") and hasattr(e, "b"):
            return self.binary(e, self.scalar(e.a), self.scalar(e.b), e.a.dtype)
        if isinstance(e, Ramp | Broadcast):
            return self.vector(e)
        raise GpuCodegenError(f"the CUDA code generator does not handle {type(e).__name__} nodes")

    def cast(self, to: DataType, frm: DataType, text: str) -> str:
        if to == frm:
            return text
        sto, sfrom = str(to.element_of()), str(frm.element_of())
        if {sto, sfrom} == {"float16", "bfloat16"}:
            text = f"((float)({text}))"
        if to.lanes > 1:
            raise GpuCodegenError(f"vector cast to {to} must be split into lanes")
        return f"(({self.ctype(to)})({text}))"

    def binary(self, e, a: str, b: str, dtype: DataType) -> str:
        op = _BINARY.get(type(e))
        if op is not None:
            return f"({a} {op} {b})"
        is_float = dtype.is_float
        low = str(dtype) in ("float16", "bfloat16")
        if isinstance(e, Div):
            return f"({a} / {b})"
        if isinstance(e, Mod):
            return f"fmodf({a}, {b})" if is_float else f"({a} % {b})"
        if isinstance(e, Min | Max):
            if low:
                return f"(({a} {'<' if isinstance(e, Min) else '>'} {b}) ? {a} : {b})"
            return f"{'min' if isinstance(e, Min) else 'max'}({a}, {b})"
        if isinstance(e, FloorDiv):
            if is_float:
                return f"{'floor' if dtype.bits == 64 else 'floorf'}({a} / {b})"
            if self._nonneg_div(e):
                return f"({a} / {b})"
            return f"ember_floordiv({a}, {b})"
        if isinstance(e, FloorMod):
            if is_float:
                return f"({a} - {'floor' if dtype.bits == 64 else 'floorf'}({a} / {b}) * {b})"
            if self._nonneg_div(e):
                return f"({a} % {b})"
            return f"ember_floormod({a}, {b})"
        raise GpuCodegenError(f"the CUDA code generator does not handle {type(e).__name__} nodes")

    def _nonneg_div(self, e) -> bool:
        if e.a.dtype.is_uint:
            return True
        try:
            bound = self.analyzer.const_int_bound
            return bound(e.a).min_value >= 0 and bound(e.b).min_value > 0
        except Exception:  # an expression the analyzer cannot bound
            return False

    def call(self, e: Call, args: list, dtype: DataType, arg_types: list) -> str:
        op = e.op
        name = op.name[4:] if isinstance(op, Op) and op.name.startswith("tir.") else getattr(op, "name", str(op))
        if name in _MATH:
            if str(dtype) not in ("float32", "float64"):
                raise GpuCodegenError(f"{name} of {dtype} should have been promoted to float32 by LowerIntrin")
            f32, f64, fast = _MATH[name]
            fn = f64 if dtype.bits == 64 else (fast if self.fast_math else f32)
            return f"{fn}({', '.join(args)})"
        if name in _BITWISE:
            return f"({args[0]} {_BITWISE[name]} {args[1]})"
        if name == "bitwise_not":
            return f"(~{args[0]})"
        if name in ("isnan", "isinf", "isfinite"):
            return f"{name}({args[0]})"
        if name in ("popcount", "clz"):
            wide = arg_types[0].bits == 64
            return f"__{'popc' if name == 'popcount' else 'clz'}{'ll' if wide else ''}({args[0]})"
        if name == "if_then_else":
            return f"({args[0]} ? {args[1]} : {args[2]})"
        if name == "likely":
            return args[0]
        if name == "reinterpret":
            key = (str(arg_types[0]), str(dtype))
            fn = _REINTERPRET.get(key)
            if fn is None:
                raise GpuCodegenError(f"reinterpret from {key[0]} to {key[1]} is not supported on CUDA")
            return f"{fn}({args[0]})"
        if name in ("call_extern", "call_pure_extern"):
            fn = args[0].value if isinstance(args[0], StringImm) else str(args[0])
            return f"{fn}({', '.join(self.scalar(a) if isinstance(a, StringImm) else a for a in args[1:])})"
        if name == "address_of":
            load = e.args[0]
            return f"(&{self.names(load.buffer.data)}[{self.scalar(load.indices[0])}])"
        if name == "tvm_access_ptr":
            return f"({self.names(e.args[1])} + {self.scalar(e.args[2])})"
        if name == "type_annotation":  # tvm_access_ptr's dtype note: no value of its own
            return "0"
        if name in WMMA_CALLS:  # tensor cores (wmma.py)
            self.uses.add("wmma")
            return print_wmma_call(name, e, self.names, self.scalar)
        raise GpuCodegenError(f"the CUDA code generator has no spelling for intrinsic {getattr(op, 'name', op)!r}")

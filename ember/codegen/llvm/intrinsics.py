"""TIR intrinsic calls → LLVM: a table from op name to an emitter.

Math maps to LLVM intrinsics where LLVM has one (``llvm.exp.f32`` …) and to libm
otherwise (``erff``, ``atan2`` …; float16/bfloat16 go through float32, vectors are
done lane by lane).  Other entries: if_then_else (only the taken side runs),
reinterpret, call_extern, call_llvm_intrin, bit operations, and the DLTensor
accessors ``make_packed_api`` emits.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ember.ir import Call, DataType, IntImm, StringImm
from ember.tir import BufferLoad

from ..builtin_ops import DLTensorField
from .expr import CodegenError
from .types import F32, I1, I8, I16, I32, I64, PTR, constant, llvm_type
from .vector_math import VECTOR_MATH, emit_vector_math

__all__ = ["emit_call", "DLTENSOR"]

F32_DT = DataType("float32")

# DLTensor {data, {device_type, device_id}, ndim, {code, bits, lanes}, shape, strides, byte_offset}
DLTENSOR = ir.LiteralStructType([
    PTR, ir.LiteralStructType([I32, I32]), I32, ir.LiteralStructType([I8, I8, I16]),
    I64.as_pointer(), I64.as_pointer(), I64,
])
_FIELD_PATH = {
    DLTensorField.RAW_DATA: (0,),
    DLTensorField.DEVICE_TYPE: (1, 0),
    DLTensorField.DEVICE_ID: (1, 1),
    DLTensorField.NDIM: (2,),
    DLTensorField.DTYPE_CODE: (3, 0),
    DLTensorField.DTYPE_BITS: (3, 1),
    DLTensorField.DTYPE_LANES: (3, 2),
    DLTensorField.SHAPE: (4,),
    DLTensorField.STRIDES: (5,),
    DLTensorField.BYTE_OFFSET: (6,),
}

# tir op → LLVM intrinsic of the same type
_LLVM_UNARY = {
    "exp": "llvm.exp", "exp2": "llvm.exp2", "log": "llvm.log", "log2": "llvm.log2",
    "log10": "llvm.log10", "sqrt": "llvm.sqrt", "sin": "llvm.sin", "cos": "llvm.cos",
    "fabs": "llvm.fabs", "floor": "llvm.floor", "ceil": "llvm.ceil", "trunc": "llvm.trunc",
    "round": "llvm.nearbyint", "nearbyint": "llvm.nearbyint",
}
_LLVM_BINARY = {"pow": "llvm.pow", "copysign": "llvm.copysign"}
# tir op → libm function (float64 name; float32 adds "f")
_LIBM_UNARY = ("exp10", "log1p", "expm1", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan",
               "asinh", "acosh", "atanh", "erf")
_LIBM_BINARY = ("atan2", "hypot", "nextafter", "fmod")


def _args(cg, call: Call) -> list[ir.Value]:
    return [cg.emit(a) for a in call.args]


def _float_op(cg, call: Call, emit_native: Callable) -> ir.Value:
    """Run ``emit_native(values, dtype)`` on float args, via float32 for bfloat16."""
    dtype = call.args[0].dtype
    values = _args(cg, call)
    if dtype.code == 4:
        lanes = dtype.lanes
        values = [cg.bf16_to_f32(v, lanes) for v in values]
        result = emit_native(values, F32_DT.with_lanes(lanes))
        return cg.f32_to_bf16(result, lanes) if call.dtype.code == 4 else result
    if not dtype.is_float:
        raise CodegenError(f"{call.op.name} needs float arguments, got {dtype}; cast first")
    return emit_native(values, dtype)


def _llvm_math(name: str):
    def emit(cg, call: Call) -> ir.Value:
        return _float_op(cg, call, lambda vs, dt: cg.call_intrinsic(name, vs[0], dt, *vs[1:]))

    return emit


def _libm(name: str, nargs: int):
    def scalar(cg, values: list[ir.Value], dtype: DataType) -> ir.Value:
        b = cg.builder
        if dtype.bits == 16:  # half: compute in float
            wide = [b.fpext(v, F32) for v in values]
            return b.fptrunc(scalar(cg, wide, F32_DT), values[0].type)
        ty = values[0].type
        fname = name + ("f" if dtype.bits == 32 else "")
        fn = cg.module.globals.get(fname)
        if fn is None:
            fn = ir.Function(cg.module, ir.FunctionType(ty, [ty] * nargs), fname)
        return b.call(fn, values)

    def native(cg, values: list[ir.Value], dtype: DataType) -> ir.Value:
        if dtype.lanes == 1:
            return scalar(cg, values, dtype)
        b = cg.builder
        out = ir.Constant(values[0].type, ir.Undefined)
        for lane in range(dtype.lanes):
            k = ir.Constant(I32, lane)
            out = b.insert_element(out, scalar(cg, [b.extract_element(v, k) for v in values], dtype.element_of()), k)
        return out

    def emit(cg, call: Call) -> ir.Value:
        return _float_op(cg, call, lambda vs, dt: native(cg, vs, dt))

    return emit


def _rsqrt(cg, call: Call) -> ir.Value:
    def native(vs, dt):
        return cg.builder.fdiv(constant(dt, 1.0), cg.call_intrinsic("llvm.sqrt", vs[0], dt))

    return _float_op(cg, call, native)


def _sigmoid(cg, call: Call) -> ir.Value:
    def native(vs, dt):
        b = cg.builder
        e = cg.call_intrinsic("llvm.exp", b.fneg(vs[0]), dt)
        return b.fdiv(constant(dt, 1.0), b.fadd(constant(dt, 1.0), e))

    return _float_op(cg, call, native)


def _ldexp(cg, call: Call) -> ir.Value:
    def native(vs, dt):
        b = cg.builder
        exps = cg.cast(vs[1], dt, DataType("int32").with_lanes(dt.lanes))
        fname = "ldexpf" if dt.bits == 32 else "ldexp"
        scalar_ty = llvm_type(dt.element_of())
        fn = cg.module.globals.get(fname) or ir.Function(cg.module, ir.FunctionType(scalar_ty, [scalar_ty, I32]), fname)
        if dt.lanes == 1:
            return b.call(fn, [vs[0], exps])
        out = ir.Constant(vs[0].type, ir.Undefined)
        for lane in range(dt.lanes):
            k = ir.Constant(I32, lane)
            out = b.insert_element(out, b.call(fn, [b.extract_element(vs[0], k), b.extract_element(exps, k)]), k)
        return out

    if call.args[0].dtype.bits == 16:
        raise CodegenError("ldexp of float16 is not supported; cast to float32 first")
    return _float_op(cg, call, native)


def _fp_class(kind: str):
    def emit(cg, call: Call) -> ir.Value:
        dtype = call.args[0].dtype
        lanes = dtype.lanes
        if not dtype.is_float:  # integers are always finite
            value = kind == "isfinite"
            return constant(DataType("bool").with_lanes(lanes), value)

        def native(vs, dt):
            b = cg.builder
            x = vs[0]
            if kind == "isnan":
                return b.fcmp_unordered("uno", x, x)
            inf = constant(dt, float("inf"))
            mag = cg.call_intrinsic("llvm.fabs", x, dt)
            return b.fcmp_ordered("==", mag, inf) if kind == "isinf" else b.fcmp_ordered("!=", mag, inf)

        return _float_op(cg, call, native)

    return emit


def _fabs(cg, call: Call) -> ir.Value:
    if call.args[0].dtype.is_float:
        return _llvm_math("llvm.fabs")(cg, call)
    x = cg.emit(call.args[0])
    if not call.args[0].dtype.is_int:
        return x
    b = cg.builder
    return b.select(b.icmp_signed("<", x, constant(call.dtype, 0)), b.neg(x), x)


def _bits(op: str):
    def emit(cg, call: Call) -> ir.Value:
        b = cg.builder
        vs = _args(cg, call)
        dtype = call.dtype
        if op == "not":
            return b.not_(vs[0])
        if op == "shr":
            return b.ashr(vs[0], vs[1]) if dtype.is_int else b.lshr(vs[0], vs[1])
        return getattr(b, op)(vs[0], vs[1])

    return emit


def _popcount(cg, call: Call) -> ir.Value:
    return cg.call_intrinsic("llvm.ctpop", cg.emit(call.args[0]), call.dtype)


def _clz(cg, call: Call) -> ir.Value:
    return cg.call_intrinsic("llvm.ctlz", cg.emit(call.args[0]), call.dtype, ir.Constant(I1, 0))


def _if_then_else(cg, call: Call) -> ir.Value:
    cond_e, then_e, else_e = call.args
    if cond_e.dtype.lanes > 1:  # vector condition: both sides, then select
        return cg.builder.select(cg.emit(cond_e), cg.emit(then_e), cg.emit(else_e))
    return cg.branch_value(cg.emit(cond_e), lambda: cg.emit(then_e), lambda: cg.emit(else_e), "if")


def _passthrough(cg, call: Call) -> ir.Value:
    return cg.emit(call.args[0])


def _reinterpret(cg, call: Call) -> ir.Value:
    value = cg.emit(call.args[0])
    src, dst = call.args[0].dtype, call.dtype
    to = llvm_type(dst)
    if dst.is_handle and not src.is_handle:
        return cg.builder.inttoptr(value, to)
    if src.is_handle and not dst.is_handle:
        return cg.builder.ptrtoint(value, to)
    if value.type == to:
        return value
    return cg.builder.bitcast(value, to)


def _assume(cg, call: Call) -> ir.Value:
    fn = cg.module.globals.get("llvm.assume") or ir.Function(cg.module, ir.FunctionType(ir.VoidType(), [I1]), "llvm.assume")
    cg.builder.call(fn, [cg.emit(call.args[0])])
    return ir.Constant(I1, 1)


def _extern(cg, call: Call) -> ir.Value:
    name_e = call.args[0]
    if not isinstance(name_e, StringImm):
        raise CodegenError(f"{call.op.name}: the first argument must be the function name (StringImm), got {name_e!r}")
    name = name_e.value
    if call.op.name.startswith("tir.call_llvm") and not name.startswith("llvm."):
        name = "llvm." + name
    values = [cg.emit(a) for a in call.args[1:]]
    ret = llvm_type(call.dtype)
    fn = cg.module.globals.get(name)
    if fn is None:
        fn = ir.Function(cg.module, ir.FunctionType(ret, [v.type for v in values]), name)
    return cg.builder.call(fn, values)


def _ret(cg, call: Call) -> ir.Value:
    cg.emit_return(cg.emit(call.args[0]), call.args[0].dtype)
    return ir.Constant(I32, 0)


def _address_of(cg, call: Call) -> ir.Value:
    load = call.args[0]
    if not isinstance(load, BufferLoad):
        raise CodegenError(f"tir.address_of expects a BufferLoad, got {load!r}")
    index = cg.flat_index(load.buffer, load.indices)
    ptr = cg.element_pointer(load.buffer, cg._index_i64(cg.emit(index), index.dtype))
    return cg.builder.bitcast(ptr, PTR)


def _access_ptr(cg, call: Call) -> ir.Value:
    ptype, data, offset = call.args[0], call.args[1], call.args[2]
    elem = llvm_type(ptype.dtype) if not ptype.dtype.is_handle else I8
    b = cg.builder
    typed = b.bitcast(cg.emit(data), elem.as_pointer())
    return b.bitcast(b.gep(typed, [cg._index_i64(cg.emit(offset), offset.dtype)]), PTR)


def _vector_half(which: str):
    def emit(cg, call: Call) -> ir.Value:
        b = cg.builder
        vs = _args(cg, call)
        if which == "combine":
            n = vs[0].type.count + vs[1].type.count
            mask = list(range(n))
            return b.shuffle_vector(vs[0], vs[1], ir.Constant(ir.VectorType(I32, n), mask))
        n = vs[0].type.count // 2
        start = 0 if which == "low" else n
        mask = ir.Constant(ir.VectorType(I32, n), list(range(start, start + n)))
        return b.shuffle_vector(vs[0], ir.Constant(vs[0].type, ir.Undefined), mask)

    return emit


def _noop(cg, call: Call) -> ir.Value:
    return ir.Constant(I32, 0)


def _struct_get(cg, call: Call) -> ir.Value:
    handle, _, field = call.args
    field = DLTensorField(int(field.value) if isinstance(field, IntImm) else -1)
    b = cg.builder
    ptr = b.bitcast(cg.emit(handle), DLTENSOR.as_pointer())
    if field is DLTensorField.DATA:
        raw = b.load(b.gep(ptr, [ir.Constant(I32, 0), ir.Constant(I32, 0)], inbounds=True))
        offset = b.load(b.gep(ptr, [ir.Constant(I32, 0), ir.Constant(I32, 6)], inbounds=True))
        return b.gep(raw, [offset])
    path = [ir.Constant(I32, 0)] + [ir.Constant(I32, i) for i in _FIELD_PATH[field]]
    value = b.load(b.gep(ptr, path, inbounds=True))
    want = llvm_type(call.dtype)
    if isinstance(value.type, ir.PointerType):
        return value if value.type == want else b.bitcast(value, want)
    return value if value.type == want else b.zext(value, want)


def _isnullptr(cg, call: Call) -> ir.Value:
    value = cg.emit(call.args[0])
    return cg.builder.icmp_unsigned("==", cg.builder.ptrtoint(value, I64), ir.Constant(I64, 0))


_TABLE: dict[str, Callable] = {
    **{f"tir.{k}": _llvm_math(v) for k, v in _LLVM_UNARY.items()},
    **{f"tir.{k}": _llvm_math(v) for k, v in _LLVM_BINARY.items()},
    **{f"tir.{k}": _libm(k, 1) for k in _LIBM_UNARY},
    **{f"tir.{k}": _libm(k, 2) for k in _LIBM_BINARY},
    "tir.fabs": _fabs,
    "tir.rsqrt": _rsqrt,
    "tir.sigmoid": _sigmoid,
    "tir.ldexp": _ldexp,
    "tir.isnan": _fp_class("isnan"),
    "tir.isinf": _fp_class("isinf"),
    "tir.isfinite": _fp_class("isfinite"),
    "tir.popcount": _popcount,
    "tir.clz": _clz,
    "tir.bitwise_and": _bits("and_"),
    "tir.bitwise_or": _bits("or_"),
    "tir.bitwise_xor": _bits("xor"),
    "tir.bitwise_not": _bits("not"),
    "tir.shift_left": _bits("shl"),
    "tir.shift_right": _bits("shr"),
    "tir.if_then_else": _if_then_else,
    "tir.likely": _passthrough,
    "tir.reinterpret": _reinterpret,
    "tir.assume": _assume,
    "tir.call_extern": _extern,
    "tir.call_pure_extern": _extern,
    "tir.call_llvm_intrin": _extern,
    "tir.call_llvm_pure_intrin": _extern,
    "tir.ret": _ret,
    "tir.address_of": _address_of,
    "tir.tvm_access_ptr": _access_ptr,
    "tir.vectorhigh": _vector_half("high"),
    "tir.vectorlow": _vector_half("low"),
    "tir.vectorcombine": _vector_half("combine"),
    "tir.start_profile_intrinsic": _noop,
    "tir.end_profile_intrinsic": _noop,
    "tir.tvm_struct_get": _struct_get,
    "tir.isnullptr": _isnullptr,
}

# intrinsics that a tir.transform pass must rewrite before codegen
_LOWERED_ELSEWHERE = {
    "tir.tvm_thread_allreduce": "tir.transform.LowerThreadAllreduce (GPU targets only)",
    "tir.tvm_storage_sync": "tir.transform.ThreadSync (GPU targets only)",
}


def emit_call(cg, call: Call) -> ir.Value:
    op = call.op
    name = getattr(op, "name", None)
    if name is None:
        raise CodegenError(f"calls to other functions ({op!r}) are not supported by the LLVM code generator")
    if name in VECTOR_MATH:  # float32 vectors: inline polynomial code instead of libm per lane
        value = emit_vector_math(cg, call)
        if value is not None:
            return value
    handler = _TABLE.get(name)
    if handler is None:
        hint = _LOWERED_ELSEWHERE.get(name, "tir.transform.LowerIntrin in lower_for_codegen")
        raise CodegenError(f"the LLVM code generator has no rule for the intrinsic {name!r}; "
                           f"it should have been lowered by {hint}")
    return handler(cg, call)

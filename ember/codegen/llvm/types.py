"""LLVM types and constants for ember DataTypes.

Registers hold bool as ``i1``; memory holds it as one byte (DLPack's bool).  bfloat16
lives as its ``i16`` bit pattern and is computed in float32 (see ``expr.py``).
"""

from __future__ import annotations

import struct

from llvmlite import ir

from ember.ir import DataType

__all__ = ["llvm_type", "memory_type", "constant", "mangle", "bf16_bits", "F16", "F64", "I16", "I1", "I8", "I32", "I64", "PTR", "VOID", "F32"]

I1, I8, I16, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(16), ir.IntType(32), ir.IntType(64)
F16, F32, F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()
PTR = I8.as_pointer()
VOID = ir.VoidType()

_SCALAR = {
    ("int", 8): I8, ("int", 16): I16, ("int", 32): I32, ("int", 64): I64,
    ("uint", 8): I8, ("uint", 16): I16, ("uint", 32): I32, ("uint", 64): I64,
    ("int", 1): I1, ("uint", 1): I1,
    ("float", 16): F16, ("float", 32): F32, ("float", 64): F64,
    ("bfloat", 16): I16,
}
_CODE = {0: "int", 1: "uint", 2: "float", 4: "bfloat"}


def _scalar(dtype: DataType, in_memory: bool) -> ir.Type:
    if dtype.is_bool:
        return I8 if in_memory else I1
    if dtype.is_handle:
        return PTR
    try:
        return _SCALAR[(_CODE[dtype.code], dtype.bits)]
    except KeyError:
        raise TypeError(f"the LLVM code generator has no type for {dtype}") from None


def llvm_type(dtype: DataType) -> ir.Type:
    """The register type of ``dtype`` (vectors for lanes > 1)."""
    dtype = DataType(dtype)
    elem = _scalar(dtype, in_memory=False)
    return elem if dtype.lanes == 1 else ir.VectorType(elem, dtype.lanes)


def memory_type(dtype: DataType) -> ir.Type:
    """The in-memory element type of ``dtype`` (bool is a byte)."""
    dtype = DataType(dtype)
    elem = _scalar(dtype, in_memory=True)
    return elem if dtype.lanes == 1 else ir.VectorType(elem, dtype.lanes)


def bf16_bits(value: float) -> int:
    """Round-to-nearest-even bfloat16 bits of ``value``."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if value != value:  # NaN
        return 0x7FC0
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def mangle(ty: ir.Type) -> str:
    """The type suffix LLVM uses in overloaded intrinsic names (f32, v8f32, i64 …)."""
    if isinstance(ty, ir.VectorType):
        return f"v{ty.count}{mangle(ty.element)}"
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    return {F16: "f16", F32: "f32", F64: "f64"}[ty]


def constant(dtype: DataType, value) -> ir.Constant:
    """An LLVM constant of ``dtype`` (scalar; vectors are splats)."""
    dtype = DataType(dtype)
    elem_dtype = dtype.element_of()
    if dtype.code == 4:
        c = ir.Constant(I16, bf16_bits(float(value)))
    elif dtype.is_float:
        value = float(value)
        if dtype.bits == 16:  # LLVM only accepts half constants it can represent exactly
            import numpy as np

            value = float(np.float16(value))
        c = ir.Constant(llvm_type(elem_dtype), value)
    elif dtype.is_bool:
        c = ir.Constant(I1, int(bool(value)))
    elif dtype.is_handle:
        c = ir.Constant(PTR, None)
    else:
        bits = dtype.bits
        c = ir.Constant(llvm_type(elem_dtype), int(value) & ((1 << bits) - 1))
    if dtype.lanes == 1:
        return c
    return ir.Constant(ir.VectorType(c.type, dtype.lanes), [c] * dtype.lanes)

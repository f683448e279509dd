"""ONNX element types ember has no dtype for — float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ,
E8M0), FLOAT4E2M1, INT4/UINT4 and INT2/UINT2 — held in Relax as a *storage* dtype, one
element per byte:

- the float formats as their bit pattern in a ``uint8`` (float4: the low 4 bits);
- INT4/INT2 as their value in an ``int8``, UINT4/UINT2 as their value in a ``uint8``.

A graph input or output of such a type takes or gives its storage array: ``to_storage``
turns an ml_dtypes array (what ``onnx.numpy_helper`` decodes) into it and
``from_storage(array, elem_type)`` turns a result back.  Shape ops (Reshape, Transpose,
Identity, …) work on the storage as is; Cast/CastLike and QuantizeLinear/DequantizeLinear
convert with ``decode``/``encode`` below, which follow ONNX's reference semantics (round
to nearest even; ``saturate`` clamps to the largest finite value; E8M0's ``round_mode``;
integer types keep the low bits of the truncated value, as ml_dtypes does).
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
from onnx import TensorProto as TP

from ember import te, tir

from ... import op as R
from ...expr import const

__all__ = ["LOWBIT", "is_lowbit", "storage_dtype", "to_storage", "from_storage", "decode", "encode",
           "lowbit_name"]


@dataclass(frozen=True)
class LowBit:
    name: str          # ONNX's name
    np_type: object    # the ml_dtypes scalar type
    storage: str       # the Relax dtype holding one element
    bits: int
    kind: str          # "float" or "int"
    exp_bits: int = 0
    man_bits: int = 0
    bias: int = 0
    max_code: int = 0  # the largest finite magnitude's code
    inf_code: int = -1  # the +inf code (E5M2 only)
    nan_code: int = 0   # a NaN code
    fnuz: bool = False  # no negative zero (0x80 is NaN)


LOWBIT: dict[int, LowBit] = {
    TP.FLOAT8E4M3FN: LowBit("FLOAT8E4M3FN", ml_dtypes.float8_e4m3fn, "uint8", 8, "float", 4, 3, 7, 0x7E, -1, 0x7F),
    TP.FLOAT8E4M3FNUZ: LowBit("FLOAT8E4M3FNUZ", ml_dtypes.float8_e4m3fnuz, "uint8", 8, "float", 4, 3, 8, 0x7F, -1,
                              0x80, True),
    TP.FLOAT8E5M2: LowBit("FLOAT8E5M2", ml_dtypes.float8_e5m2, "uint8", 8, "float", 5, 2, 15, 0x7B, 0x7C, 0x7E),
    TP.FLOAT8E5M2FNUZ: LowBit("FLOAT8E5M2FNUZ", ml_dtypes.float8_e5m2fnuz, "uint8", 8, "float", 5, 2, 16, 0x7F, -1,
                              0x80, True),
    TP.FLOAT8E8M0: LowBit("FLOAT8E8M0", ml_dtypes.float8_e8m0fnu, "uint8", 8, "e8m0"),
    # float4 has neither inf nor NaN: ml_dtypes saturates and turns NaN into -0 (code 8)
    TP.FLOAT4E2M1: LowBit("FLOAT4E2M1", ml_dtypes.float4_e2m1fn, "uint8", 4, "float", 2, 1, 1, 0x7, -1, 0x8),
    TP.INT4: LowBit("INT4", ml_dtypes.int4, "int8", 4, "int"),
    TP.UINT4: LowBit("UINT4", ml_dtypes.uint4, "uint8", 4, "uint"),
    TP.INT2: LowBit("INT2", ml_dtypes.int2, "int8", 2, "int"),
    TP.UINT2: LowBit("UINT2", ml_dtypes.uint2, "uint8", 2, "uint"),
}
_BY_NP = {np.dtype(t.np_type): elem for elem, t in LOWBIT.items()}


def is_lowbit(elem_type) -> bool:
    return elem_type in LOWBIT


def lowbit_name(elem_type: int) -> str:
    return LOWBIT[elem_type].name


def storage_dtype(elem_type: int) -> str:
    return LOWBIT[elem_type].storage


def to_storage(array) -> np.ndarray:
    """An ml_dtypes array of a low-bit type as its storage array (other arrays unchanged)."""
    array = np.asarray(array)
    elem = _BY_NP.get(array.dtype)
    if elem is None:
        return array
    t = LOWBIT[elem]
    if t.kind in ("int", "uint"):
        return array.astype(t.storage)
    return array.view(np.uint8) & np.uint8((1 << t.bits) - 1)


def from_storage(array, elem_type: int) -> np.ndarray:
    """A storage array (``uint8``/``int8``) read as ONNX ``elem_type``'s ml_dtypes array."""
    array = np.asarray(array)
    t = LOWBIT.get(elem_type)
    if t is None:
        return array
    if t.kind in ("int", "uint"):
        return array.astype(t.np_type)
    return array.astype(np.uint8).view(t.np_type)


# -- in the graph ----------------------------------------------------------------------------

def decode(ctx, x, elem_type: int):
    """Storage ``x`` of ``elem_type`` as float32 (float formats: a table lookup of all
    codes) or as its integer value (int formats: the storage itself)."""
    t = LOWBIT[elem_type]
    if t.kind in ("int", "uint"):
        return x
    table = np.arange(1 << t.bits, dtype=np.uint8).view(t.np_type).astype(np.float32)
    index = ctx.emit(R.astype(x, "int32"))
    return ctx.emit(R.take(const(table), index, axis=0))


def encode(ctx, x, elem_type: int, saturate: bool = True, round_mode: str = "up"):
    """``x`` (any float or int tensor) converted to ``elem_type``'s storage."""
    from .common import dtype_of

    t = LOWBIT[elem_type]
    src = dtype_of(x) or "float32"
    if t.kind in ("int", "uint"):
        if src.startswith(("float", "bfloat")):
            x = ctx.emit(R.astype(x, "int64" if src == "float64" else "int32"))
        return ctx.bb.emit_te(_wrap_int_kernel, x, t.bits, t.kind == "int", t.storage)
    if src != "float32":
        x = ctx.emit(R.astype(x, "float32"))
    if t.bits == 4:
        saturate = True  # float4 has no inf/NaN: ONNX (as ml_dtypes) saturates
    if t.kind == "e8m0":
        return ctx.bb.emit_te(_e8m0_kernel, x, saturate, round_mode)
    return ctx.bb.emit_te(_float_kernel, x, t, saturate)


def _wrap_int_kernel(x, bits: int, signed: bool, storage: str):
    mask = (1 << bits) - 1
    half = 1 << (bits - 1)

    def f(*i):
        v = tir.bitwise_and(tir.cast(x(*i), "int32"), tir.const(mask, "int32"))
        if signed:
            v = tir.Select(v >= half, v - (1 << bits), v)
        return tir.cast(v, storage)

    return te.compute(x.shape, f, name="lowbit_from_int")


def _float_kernel(x, t: LowBit, saturate: bool):
    """float32 → a small float format's code: round to nearest even in integer arithmetic
    on float32's bits, then overflow, NaN and sign rules."""
    man, bias = t.man_bits, t.bias
    emin = 1 - bias  # the smallest normal exponent

    def f(*i):
        def c(v):
            return tir.const(v, "int64")

        u = tir.bitwise_and(tir.cast(tir.reinterpret("int32", x(*i)), "int64"), c(0xFFFFFFFF))
        sign = tir.bitwise_and(u >> c(31), c(1))
        a = tir.bitwise_and(u, c(0x7FFFFFFF))
        e32 = (a >> c(23)) - c(127)
        mant = tir.bitwise_or(tir.bitwise_and(a, c(0x7FFFFF)), c(0x800000))
        shift = tir.min(c(23 - man) + tir.max(c(emin) - e32, c(0)), c(40))
        r = mant >> shift
        rem = tir.bitwise_and(mant, (c(1) << shift) - c(1))
        half = c(1) << (shift - c(1))
        up = tir.any(rem > half, tir.all(rem == half, tir.bitwise_and(r, c(1)) == c(1)))
        r = tir.Select(up, r + c(1), r)
        mag = tir.Select(e32 >= c(emin), ((e32 + c(bias)) << c(man)) + r - (c(1) << c(man)), r)
        mag = tir.Select(a < c(0x00800000), c(0), mag)  # float32 zero / subnormals
        is_nan = a > c(0x7F800000)
        is_inf = a == c(0x7F800000)
        if saturate:
            over = c(t.max_code)
        elif t.inf_code >= 0:
            over = c(t.inf_code)
        else:
            over = c(t.nan_code & 0x7F) if not t.fnuz else c(-1)
        mag = tir.Select(tir.any(mag > c(t.max_code), is_inf), over, mag)
        sign_bit = c(1 << (t.bits - 1))
        code = tir.Select(tir.all(sign == c(1), mag != c(0)), tir.bitwise_or(mag, sign_bit), mag)
        if not t.fnuz:
            code = tir.Select(tir.all(sign == c(1), mag == c(0)), sign_bit, code)
        nan = c(t.nan_code)
        code = tir.Select(tir.any(is_nan, mag < c(0)), nan, code)
        return tir.cast(code, "uint8")

    return te.compute(x.shape, f, name="lowbit_from_float")


def _e8m0_kernel(x, saturate: bool, round_mode: str):
    """float32 → E8M0 (a biased power of two): the float32 exponent field, rounded by
    ``round_mode`` on the mantissa; NaN and inf give 0xFF."""
    def f(*i):
        def c(v):
            return tir.const(v, "int64")

        u = tir.bitwise_and(tir.cast(tir.reinterpret("int32", x(*i)), "int64"), c(0xFFFFFFFF))
        e = tir.bitwise_and(u >> c(23), c(0xFF))
        frac = tir.bitwise_and(u, c(0x7FFFFF))
        if round_mode == "nearest":
            g = tir.bitwise_and(u, c(0x400000)) != c(0)
            r = tir.bitwise_and(u, c(0x200000)) != c(0)
            s = tir.bitwise_and(u, c(0x1FFFFF)) != c(0)
            up = tir.all(g, tir.any(r, s, e > c(0)))
        elif round_mode == "up":
            up = frac != c(0)
        else:
            up = tir.const(False, "bool")
        if saturate:
            up = tir.all(up, e != c(0xFE))
        e2 = tir.Select(up, e + c(1), e)
        code = tir.Select(e == c(0xFF), c(0xFF), tir.bitwise_and(e2, c(0xFF)))
        return tir.cast(code, "uint8")

    return te.compute(x.shape, f, name="lowbit_from_float_e8m0")

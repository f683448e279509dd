"""x86 int8 dot-product intrinsics for ``sch.tensorize`` (TVM's names).

Both compute, for 16 output lanes ``i``, ``C[i] += sum_k A[k] * B[i, k]`` over ``k < 4``
with ``A`` uint8, ``B`` int8 (16 rows of 4, contiguous) and ``C`` int32 — one 512-bit
register of results:

* ``dot_16x4_vnni`` (``VNNI_DOT_16x4_INTRIN``): one ``vpdpbusd`` (AVX512-VNNI), exact.
* ``dot_16x4_avx512`` (``AVX512_DOT_16x4_INTRIN``): ``vpmaddubsw`` (pairs of u8*s8 into
  int16, *saturating*) then ``vpmaddwd`` with ones and an add — for CPUs with AVX-512 but
  no VNNI; exact while each pair's sum fits int16 (as TVM's).

The four bytes of ``A`` are broadcast as one int32 to every lane; ``B`` is read as 64
consecutive bytes, so a weight laid out as ``(N/16, K/4, 16, 4)`` feeds it directly.
"""

from __future__ import annotations

from ember.ir import Broadcast, Ramp, const
from ember.tir.op import call_llvm_pure_intrin, reinterpret
from ember.tir.schedule.tensor_intrin import TensorIntrin
from ember.tir.stmt import BufferStore

from .dot_product_common import row_dot_intrin

__all__ = ["VNNI_DOT_16x4_INTRIN", "AVX512_DOT_16x4_INTRIN", "dot_product_16x4_u8i8i32_desc",
           "dot_product_16x4_u8i8i32_vnni", "dot_product_16x4_u8i8i32_avx512"]

LANES, K = 16, 4
_DTYPES = ("uint8", "int8", "int32")


def _lanes():
    return Ramp(const(0), const(1), LANES)


def _a_broadcast(a):
    """The four bytes of A as one int32, in every lane."""
    return Broadcast(reinterpret("int32", a.vload([0], "uint8x4")), LANES)


def _vnni_body(a, b, c):
    acc = call_llvm_pure_intrin("int32x16", "llvm.x86.avx512.vpdpbusd.512", c[_lanes()], _a_broadcast(a),
                                reinterpret("int32x16", b.vload([0, 0], "int8x64")))
    return BufferStore(c, acc, (_lanes(),))


def _avx512_body(a, b, c):
    pairs = call_llvm_pure_intrin("int16x32", "llvm.x86.avx512.pmaddubs.w.512",
                                  reinterpret("int8x64", _a_broadcast(a)), b.vload([0, 0], "int8x64"))
    quads = call_llvm_pure_intrin("int32x16", "llvm.x86.avx512.pmaddw.d.512", pairs,
                                  Broadcast(const(1, "int16"), 32))
    return BufferStore(c, c[_lanes()] + quads, (_lanes(),))


VNNI_DOT_16x4_INTRIN = "dot_16x4_vnni"
AVX512_DOT_16x4_INTRIN = "dot_16x4_avx512"

# The PrimFuncs themselves, under TVM's names.
dot_product_16x4_u8i8i32_desc, dot_product_16x4_u8i8i32_vnni = row_dot_intrin(LANES, K, _DTYPES, _vnni_body)
dot_product_16x4_u8i8i32_avx512 = row_dot_intrin(LANES, K, _DTYPES, _avx512_body)[1]
TensorIntrin.register(VNNI_DOT_16x4_INTRIN, dot_product_16x4_u8i8i32_desc, dot_product_16x4_u8i8i32_vnni,
                      override=True)
TensorIntrin.register(AVX512_DOT_16x4_INTRIN, dot_product_16x4_u8i8i32_desc, dot_product_16x4_u8i8i32_avx512,
                      override=True)

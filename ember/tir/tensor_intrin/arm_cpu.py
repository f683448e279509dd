"""Arm (AArch64) int8 dot-product intrinsics for ``sch.tensorize`` (TVM's names).

Both compute, for 4 output lanes ``i``, ``C[i] += sum_k A[k] * B[i, k]`` over ``k < 4`` with
``A``, ``B`` int8 and ``C`` int32 — one 128-bit register of results; ``B``'s 16 bytes are
read as one vector, so a weight laid out as ``(N/4, K/4, 4, 4)`` feeds it directly:

* ``dot_4x4_i8i8s32_sdot`` (``ARM_DOT_4x4_i8_SDOT_INTRIN``): one ``sdot`` (Armv8.2 dotprod).
* ``dot_4x4_i8i8s32_neon`` (``ARM_DOT_4x4_i8_NEON_INTRIN``): plain NEON — ``smull`` of each
  half into int16 products, ``saddlp`` pairwise into int32, ``addp`` of the two halves.

ember does not generate AArch64 code; these are registered so that schedules written for
Arm tensorize (and round-trip) as in TVM.  The ``DP4A_*`` names TVM re-exports here come
from ``dot_product_common``.
"""

from __future__ import annotations

from ember.ir import Broadcast, Ramp, const
from ember.tir.op import call_llvm_pure_intrin, reinterpret
from ember.tir.schedule.tensor_intrin import TensorIntrin
from ember.tir.stmt import BufferStore

from .dot_product_common import (DP4A_S8S8S32_INTRIN, DP4A_S8U8S32_INTRIN, DP4A_U8S8S32_INTRIN,
                                 DP4A_U8U8U32_INTRIN, row_dot_intrin)

__all__ = ["ARM_DOT_4x4_i8_SDOT_INTRIN", "ARM_DOT_4x4_i8_NEON_INTRIN", "DP4A_S8S8S32_INTRIN",
           "DP4A_U8U8U32_INTRIN", "DP4A_U8S8S32_INTRIN", "DP4A_S8U8S32_INTRIN"]

LANES, K = 4, 4
_DTYPES = ("int8", "int8", "int32")


def _lanes():
    return Ramp(const(0), const(1), LANES)


def _a_repeated(a, copies: int):
    """A's four bytes repeated ``copies`` times, as an int8 vector."""
    return reinterpret(f"int8x{4 * copies}", Broadcast(reinterpret("int32", a.vload([0], "int8x4")), copies))


def _sdot_body(a, b, c):
    acc = call_llvm_pure_intrin("int32x4", "llvm.aarch64.neon.sdot.v4i32.v16i8", c[_lanes()],
                                _a_repeated(a, LANES), b.vload([0, 0], "int8x16"))
    return BufferStore(c, acc, (_lanes(),))


def _neon_body(a, b, c):
    a8 = _a_repeated(a, 2)
    halves = []
    for row in (0, 2):  # rows 0-1, then rows 2-3 (8 bytes each)
        products = call_llvm_pure_intrin("int16x8", "llvm.aarch64.neon.smull.v8i16", a8,
                                         b.vload([row, 0], "int8x8"))
        halves.append(call_llvm_pure_intrin("int32x4", "llvm.aarch64.neon.saddlp.v4i32.v8i16", products))
    dots = call_llvm_pure_intrin("int32x4", "llvm.aarch64.neon.addp.v4i32", *halves)
    return BufferStore(c, c[_lanes()] + dots, (_lanes(),))


ARM_DOT_4x4_i8_SDOT_INTRIN = "dot_4x4_i8i8s32_sdot"
ARM_DOT_4x4_i8_NEON_INTRIN = "dot_4x4_i8i8s32_neon"

TensorIntrin.register(ARM_DOT_4x4_i8_SDOT_INTRIN, *row_dot_intrin(LANES, K, _DTYPES, _sdot_body), override=True)
TensorIntrin.register(ARM_DOT_4x4_i8_NEON_INTRIN, *row_dot_intrin(LANES, K, _DTYPES, _neon_body), override=True)

"""Hexagon HVX (128-byte vectors) dot-product intrinsics for ``sch.tensorize`` (TVM's names).

Both compute, for 32 output lanes ``i``, ``C[i] += sum_k A[k] * B[i, k]`` with ``C`` int32 —
one HVX register of results; ``A``'s bytes are broadcast as one word to every lane and
``B`` is read as one 128-byte vector (a weight laid out as ``(N/32, K/k, 32, k)``):

* ``vrmpy_u8u8i32`` (``VRMPY_u8u8i32_INTRIN``): ``k = 4``, ``A``, ``B`` uint8 — one
  ``vrmpyubv.acc`` (exact).
* ``vdmpy_i16i16i32`` (``VDMPY_i16i16i32_INTRIN``): ``k = 2``, ``A``, ``B`` int16 — one
  ``vdmpyhvsat.acc``, which *saturates* the sum to int32 (exact while it fits, as TVM's).

ember does not generate Hexagon code; these are registered so schedules written for HVX
tensorize as in TVM.
"""

from __future__ import annotations

from ember.ir import Broadcast, Ramp, const
from ember.tir.op import call_llvm_pure_intrin, reinterpret
from ember.tir.schedule.tensor_intrin import TensorIntrin
from ember.tir.stmt import BufferStore

from .dot_product_common import row_dot_intrin

__all__ = ["VRMPY_u8u8i32_INTRIN", "VDMPY_i16i16i32_INTRIN"]

LANES = 32


def _hvx_body(llvm_name: str, elem: str, k: int):
    def body(a, b, c):
        lanes = Ramp(const(0), const(1), LANES)
        a_word = Broadcast(reinterpret("int32", a.vload([0], f"{elem}x{k}")), LANES)
        b_vec = reinterpret(f"int32x{LANES}", b.vload([0, 0], f"{elem}x{LANES * k}"))
        acc = call_llvm_pure_intrin(f"int32x{LANES}", llvm_name, c[lanes], a_word, b_vec)
        return BufferStore(c, acc, (lanes,))
    return body


VRMPY_u8u8i32_INTRIN = "vrmpy_u8u8i32"
VDMPY_i16i16i32_INTRIN = "vdmpy_i16i16i32"

TensorIntrin.register(VRMPY_u8u8i32_INTRIN, *row_dot_intrin(
    LANES, 4, ("uint8", "uint8", "int32"), _hvx_body("llvm.hexagon.V6.vrmpyubv.acc.128B", "uint8", 4)),
    override=True)
TensorIntrin.register(VDMPY_i16i16i32_INTRIN, *row_dot_intrin(
    LANES, 2, ("int16", "int16", "int32"), _hvx_body("llvm.hexagon.V6.vdmpyhvsat.acc.128B", "int16", 2)),
    override=True)

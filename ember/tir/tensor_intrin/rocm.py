"""AMDGPU int8 dot-product intrinsic for ``sch.tensorize`` (TVM's name).

``sdot4`` (``AMDGPU_SDOT4_INTRIN``): ``C[0] += sum_k A[k] * B[k]`` over ``k < 4`` with
``A``, ``B`` int8 in shared memory and ``C`` an int32 in registers (``local``) — one
``llvm.amdgcn.sdot4`` on the two 4-byte words, without clamping.  ember does not generate
ROCm code; the intrinsic is registered so schedules written for it tensorize as in TVM.
"""

from __future__ import annotations

from ember.ir import const
from ember.tir.op import call_llvm_pure_intrin, reinterpret
from ember.tir.schedule.tensor_intrin import TensorIntrin
from ember.tir.stmt import BufferStore

from .dot_product_common import scalar_dot_intrin

__all__ = ["AMDGPU_SDOT4_INTRIN"]


def _sdot4_body(a, b, c):
    zero = const(0)
    word = [reinterpret("int32", x.vload([0], "int8x4")) for x in (a, b)]
    dot = call_llvm_pure_intrin("int32", "llvm.amdgcn.sdot4", *word, c[zero], const(False, "bool"))
    return BufferStore(c, dot, (zero,))


AMDGPU_SDOT4_INTRIN = "sdot4"

TensorIntrin.register(AMDGPU_SDOT4_INTRIN, *scalar_dot_intrin(4, ("int8", "int8", "int32"), _sdot4_body,
                                                              ("shared", "shared", "local")), override=True)

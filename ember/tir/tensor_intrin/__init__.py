"""``tvm.tir.tensor_intrin``: the tensor intrinsics ember registers for ``tensorize``.

Importing the package registers them; ``TensorIntrin.get(name)`` looks one up.  The
definitions live with the schedule primitive that uses them
(``ember.tir.schedule.tensor_intrin``); ``cuda`` holds the CUDA tensor-core (wmma)
intrinsics, ``x86`` the int8 dot products of AVX512-VNNI / AVX-512.  Vendor intrinsic sets
for targets ember does not generate code for (ROCm, Hexagon, Arm) are not provided.
"""

from ember.tir.schedule.tensor_intrin import TensorIntrin

from . import cuda, x86

__all__ = ["TensorIntrin", "cuda", "x86"]

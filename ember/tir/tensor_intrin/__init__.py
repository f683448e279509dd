"""``tvm.tir.tensor_intrin``: the tensor intrinsics ember registers for ``tensorize``.

Importing the package registers them; ``TensorIntrin.get(name)`` looks one up.  The
definitions live with the schedule primitive that uses them
(``ember.tir.schedule.tensor_intrin``); ``cuda`` holds the CUDA tensor-core (wmma)
intrinsics, ``x86`` the int8 dot products of AVX512-VNNI / AVX-512, ``arm_cpu`` / ``rocm`` /
``hexagon`` / ``dot_product_common`` the int8/int16 dot products of Arm NEON and ``sdot``,
AMDGPU ``sdot4``, Hexagon HVX and CUDA ``__dp4a``.  ember generates no Arm, ROCm or Hexagon
code: those are registered as correct descriptions so that schedules written for them
tensorize (and their traces round-trip) as in TVM.
"""

from ember.tir.schedule.tensor_intrin import TensorIntrin

from . import arm_cpu, cuda, dot_product_common, hexagon, rocm, x86

__all__ = ["TensorIntrin", "arm_cpu", "cuda", "dot_product_common", "hexagon", "rocm", "x86"]

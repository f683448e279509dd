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

from ember.ir import Broadcast, Cast, Ramp, Range, Var, const
from ember.tir.buffer import BufferRegion, decl_buffer
from ember.tir.function import PrimFunc
from ember.tir.op import call_llvm_pure_intrin, reinterpret
from ember.tir.schedule.tensor_intrin import TensorIntrin
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType

__all__ = ["VNNI_DOT_16x4_INTRIN", "AVX512_DOT_16x4_INTRIN", "dot_product_16x4_u8i8i32_desc",
           "dot_product_16x4_u8i8i32_vnni", "dot_product_16x4_u8i8i32_avx512"]

LANES, K = 16, 4


def _params():
    """Handles and buffers A (4,) uint8, B (16, 4) int8, C (16,) int32 (offset factor 1)."""
    specs = (("A", (K,), "uint8"), ("B", (LANES, K), "int8"), ("C", (LANES,), "int32"))
    handles = [Var(name.lower(), "handle") for name, _, _ in specs]
    bufs = [decl_buffer(shape, dtype, name, offset_factor=1) for name, shape, dtype in specs]
    return handles, bufs


def _root(body, bufs):
    a, b, c = bufs
    full = [BufferRegion.full_region(x) for x in (c, a, b)]
    block = Block((), tuple(full), (full[0],), "root", body)
    return BlockRealize((), const(True, "bool"), block)


def _func(impl_body) -> PrimFunc:
    handles, bufs = _params()
    body = impl_body(*bufs)
    return PrimFunc(tuple(handles), _root(body, bufs), None, dict(zip(handles, bufs)))


def _desc_body(a, b, c):
    """for i, k: C[i] += int32(A[k]) * int32(B[i, k])  (k a reduction)."""
    i, k = Var("i", "int32"), Var("k", "int32")
    vi, vk = Var("vi", "int32"), Var("vk", "int32")
    value = c[vi] + Cast("int32", a[vk]) * Cast("int32", b[vi, vk])
    block = Block((IterVar(Range(const(0), const(LANES)), vi, IterVarType.DataPar),
                   IterVar(Range(const(0), const(K)), vk, IterVarType.CommReduce)),
                  (_point(c, vi), _point(a, vk), _point(b, vi, vk)), (_point(c, vi),), "update",
                  BufferStore(c, value, (vi,)))
    inner = For(k, const(0), const(K), ForKind.SERIAL, BlockRealize((i, k), const(True, "bool"), block))
    return For(i, const(0), const(LANES), ForKind.SERIAL, inner)


def _point(buf, *indices) -> BufferRegion:
    return BufferRegion(buf, tuple(Range(i, const(1)) for i in indices))


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
dot_product_16x4_u8i8i32_desc = _func(_desc_body)
dot_product_16x4_u8i8i32_vnni = _func(_vnni_body)
dot_product_16x4_u8i8i32_avx512 = _func(_avx512_body)
TensorIntrin.register(VNNI_DOT_16x4_INTRIN, dot_product_16x4_u8i8i32_desc, dot_product_16x4_u8i8i32_vnni,
                      override=True)
TensorIntrin.register(AVX512_DOT_16x4_INTRIN, dot_product_16x4_u8i8i32_desc, dot_product_16x4_u8i8i32_avx512,
                      override=True)

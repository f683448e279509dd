"""Builders shared by the integer dot-product intrinsics of every target.

Two computation shapes cover them all (``k`` is a reduction, casts widen to ``C``'s dtype):

* ``row_dot_intrin(lanes, k, ...)``: for each of ``lanes`` outputs ``i``,
  ``C[i] += cast(A[k]) * cast(B[i, k])`` — one vector register of results, as x86 VNNI,
  Arm ``sdot`` and Hexagon ``vrmpy`` / ``vdmpy`` compute.  ``A`` is ``(k,)``, ``B``
  ``(lanes, k)`` (rows contiguous), ``C`` ``(lanes,)``.
* ``scalar_dot_intrin(k, ...)``: ``C[0] += cast(A[k]) * cast(B[k])`` — one scalar result, as
  CUDA ``__dp4a`` and AMDGPU ``sdot4`` compute (``dot_product_common`` in TVM holds the
  ``__dp4a`` ones, re-exported here).

Each builder takes the implementation as a function of the three Buffers returning the
root block's body, so a target module only writes its vector expression.
"""

from __future__ import annotations

from collections.abc import Callable

from ember.ir import Cast, Range, Var, const
from ember.tir.buffer import BufferRegion, decl_buffer
from ember.tir.function import PrimFunc
from ember.tir.op import call_pure_extern
from ember.tir.schedule.tensor_intrin import TensorIntrin
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType

__all__ = ["row_dot_intrin", "scalar_dot_intrin", "DP4A_S8S8S32_INTRIN", "DP4A_U8U8U32_INTRIN",
           "DP4A_U8S8S32_INTRIN", "DP4A_S8U8S32_INTRIN"]

Body = Callable[..., object]


def _func(specs, body: Body) -> PrimFunc:
    """A PrimFunc over buffers ``specs`` = ((name, shape, dtype, scope), ...) in (A, B, C)
    order, whose root block reads C, A, B and writes C."""
    handles = [Var(name.lower(), "handle") for name, *_ in specs]
    bufs = [decl_buffer(shape, dtype, name, scope=scope)  # elem_offset 0
            for name, shape, dtype, scope in specs]
    a, b, c = bufs
    full = [BufferRegion.full_region(x) for x in (c, a, b)]
    root = Block((), tuple(full), (full[0],), "root", body(a, b, c))
    return PrimFunc(tuple(handles), BlockRealize((), const(True, "bool"), root), None, dict(zip(handles, bufs)))


def _point(buf, *indices) -> BufferRegion:
    return BufferRegion(buf, tuple(Range(i, const(1)) for i in indices))


def _iter(var, extent, kind) -> IterVar:
    return IterVar(Range(const(0), const(extent)), var, kind)


def _row_desc_body(lanes: int, k: int):
    def body(a, b, c):
        i, j = Var("i", "int32"), Var("k", "int32")
        vi, vk = Var("vi", "int32"), Var("vk", "int32")
        value = c[vi] + Cast(c.dtype, a[vk]) * Cast(c.dtype, b[vi, vk])
        block = Block((_iter(vi, lanes, IterVarType.DataPar), _iter(vk, k, IterVarType.CommReduce)),
                      (_point(c, vi), _point(a, vk), _point(b, vi, vk)), (_point(c, vi),), "update",
                      BufferStore(c, value, (vi,)))
        inner = For(j, const(0), const(k), ForKind.SERIAL, BlockRealize((i, j), const(True, "bool"), block))
        return For(i, const(0), const(lanes), ForKind.SERIAL, inner)
    return body


def _scalar_desc_body(k: int):
    def body(a, b, c):
        j, vk = Var("i", "int32"), Var("vk", "int32")
        zero = const(0)
        value = c[zero] + Cast(c.dtype, a[vk]) * Cast(c.dtype, b[vk])
        block = Block((_iter(vk, k, IterVarType.CommReduce),),
                      (_point(c, zero), _point(a, vk), _point(b, vk)), (_point(c, zero),), "update",
                      BufferStore(c, value, (zero,)))
        return For(j, const(0), const(k), ForKind.SERIAL, BlockRealize((j,), const(True, "bool"), block))
    return body


def row_dot_intrin(lanes: int, k: int, dtypes: tuple, impl: Body, scopes=("global",) * 3):
    """(desc, impl) for ``C[i] += A[k] * B[i, k]``; ``dtypes`` = (A, B, C) element types."""
    specs = tuple(zip("ABC", ((k,), (lanes, k), (lanes,)), dtypes, scopes))
    return _func(specs, _row_desc_body(lanes, k)), _func(specs, impl)


def scalar_dot_intrin(k: int, dtypes: tuple, impl: Body, scopes=("global",) * 3):
    """(desc, impl) for ``C[0] += A[k] * B[k]``; ``dtypes`` = (A, B, C) element types."""
    specs = tuple(zip("ABC", ((k,), (k,), (1,)), dtypes, scopes))
    return _func(specs, _scalar_desc_body(k)), _func(specs, impl)


def _dp4a_impl(a, b, c):
    """``C[0] = __dp4a(A[0:4], B[0:4], 0) + C[0]`` (CUDA's 4-way byte dot product)."""
    zero = const(0)
    dot = call_pure_extern(c.dtype, "__dp4a", a.vload([0], f"{a.dtype}x4"), b.vload([0], f"{b.dtype}x4"),
                           const(0, c.dtype))
    return BufferStore(c, c[zero] + dot, (zero,))


def _register_dp4a(dtype_a: str, dtype_b: str, dtype_c: str) -> str:
    short = {"int8": "s8", "uint8": "u8", "int32": "s32", "uint32": "u32"}
    name = f"dp4a_{short[dtype_a]}{short[dtype_b]}{short[dtype_c]}"
    desc, impl = scalar_dot_intrin(4, (dtype_a, dtype_b, dtype_c), _dp4a_impl, ("shared", "shared", "local"))
    TensorIntrin.register(name, desc, impl, override=True)
    return name


DP4A_S8S8S32_INTRIN = _register_dp4a("int8", "int8", "int32")
DP4A_U8U8U32_INTRIN = _register_dp4a("uint8", "uint8", "uint32")
DP4A_U8S8S32_INTRIN = _register_dp4a("uint8", "int8", "int32")
DP4A_S8U8S32_INTRIN = _register_dp4a("int8", "uint8", "int32")

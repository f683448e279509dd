"""TensorIntrin: named (description, implementation) PrimFunc pairs for ``tensorize``.

The description says *what* a micro-kernel computes (loops and a block, as TIR); the
implementation says *how* (here: vector Ramp/Broadcast expressions).  Both take the
same buffer parameters, in the same order.  ``register`` / ``get`` keep a global table.

Registered here: ``"ember_f32_axpy_16"`` (x86 AVX-512 / 2×AVX2 sized), which computes
``C[0:16] += A[0] * B[0:16]`` — the inner step of an outer-product float32 GEMM
micro-kernel — as one 16-lane fused multiply-add.
"""

from __future__ import annotations

from ember.ir import Broadcast, Ramp, Range, Var, const
from ember.tir.buffer import decl_buffer
from ember.tir.function import PrimFunc
from ember.tir.stmt import Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType

__all__ = ["TensorIntrin"]

_REGISTRY: dict = {}


class TensorIntrin:
    """A tensor intrinsic: ``desc`` (the computation) and ``impl`` (its replacement)."""

    def __init__(self, desc: PrimFunc, impl: PrimFunc):
        self.desc = desc
        self.impl = impl

    @staticmethod
    def register(name: str, desc: PrimFunc, impl: PrimFunc, override: bool = False) -> TensorIntrin:
        if not isinstance(desc, PrimFunc) or not isinstance(impl, PrimFunc):
            raise TypeError(f"TensorIntrin.register({name!r}): desc and impl must be PrimFuncs, got "
                            f"{type(desc).__name__} and {type(impl).__name__}")
        if len(desc.params) != len(impl.params):
            raise ValueError(f"TensorIntrin.register({name!r}): desc has {len(desc.params)} parameters "
                             f"but impl has {len(impl.params)}")
        if name in _REGISTRY and not override:
            raise ValueError(f"TensorIntrin {name!r} is already registered (pass override=True)")
        intrin = TensorIntrin(desc, impl)
        _REGISTRY[name] = intrin
        return intrin

    @staticmethod
    def get(name: str, allow_missing: bool = False) -> TensorIntrin | None:
        intrin = _REGISTRY.get(name)
        if intrin is None and not allow_missing:
            raise ValueError(f"no TensorIntrin named {name!r}; registered: {', '.join(sorted(_REGISTRY))}")
        return intrin

    @staticmethod
    def list_names() -> list[str]:
        return sorted(_REGISTRY)


def _params(shapes: dict, symbolic: bool):
    handles, bufmap = [], {}
    for name, shape in shapes.items():
        h = Var(name.lower(), "handle")
        offset = Var(f"{name.lower()}_offset", "int32") if symbolic else None
        buf = decl_buffer(shape, "float32", name, elem_offset=offset, offset_factor=1)
        handles.append(h)
        bufmap[h] = buf
    return handles, bufmap


def _root(body, reads, writes):
    return BlockRealize((), const(True), Block((), reads, writes, "root", body))


def _axpy_16():
    n = 16
    handles, bufmap = _params({"A": (1,), "B": (n,), "C": (n,)}, symbolic=False)
    A, B, C = bufmap.values()
    j, vj = Var("j"), Var("vj")
    update = Block(
        (IterVar(Range(0, n), vj, IterVarType.DataPar),),
        (C[vj:vj + 1], A[0:1], B[vj:vj + 1]), (C[vj:vj + 1],), "update",
        BufferStore(C, C[vj] + A[0] * B[vj], (vj,)))
    body = For(j, const(0), const(n), ForKind.SERIAL, BlockRealize((j,), const(True), update))
    desc = PrimFunc(tuple(handles), _root(body, (C[0:n], A[0:1], B[0:n]), (C[0:n],)), None, bufmap)

    handles, bufmap = _params({"A": (1,), "B": (n,), "C": (n,)}, symbolic=True)
    A, B, C = bufmap.values()
    lanes = Ramp(const(0), const(1), n)
    store = BufferStore(C, C[lanes] + Broadcast(A[0], n) * B[lanes], (lanes,))
    impl = PrimFunc(tuple(handles), _root(store, (C[0:n], A[0:1], B[0:n]), (C[0:n],)), None, bufmap)
    return desc, impl


TensorIntrin.register("ember_f32_axpy_16", *_axpy_16())

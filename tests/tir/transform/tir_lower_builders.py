"""Small TIR programs for the lowering-pass tests, built by hand or with ``te``."""

from __future__ import annotations

import numpy as np

from ember import te, tir
from ember.ir import IRModule, const
from ember.tir import (
    Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType, PrimFunc, Range, Var,
    decl_buffer,
)
from ember.tir.interpreter import run


def func_of(params_and_buffers, body, name="main") -> PrimFunc:
    """A PrimFunc with handle params carrying ``buffers`` and the given body."""
    params, bmap = [], {}
    for buf in params_and_buffers:
        if isinstance(buf, Var):
            params.append(buf)
            continue
        handle = Var(buf.name + "_handle", "handle")
        params.append(handle)
        bmap[handle] = buf
    return PrimFunc(tuple(params), body, None, bmap, {"global_symbol": name})


def loop(var, extent, body, kind=ForKind.SERIAL, start=0, annotations=None) -> For:
    return For(var, const(start, var.dtype), const(extent, var.dtype) if isinstance(extent, int) else extent,
               kind, body, None, annotations or {})


def matmul_add(n=4, m=6, k=8) -> PrimFunc:
    """D = A @ B + 1 through an intermediate C (te, block TIR with init)."""
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="r")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    D = te.compute((n, m), lambda i, j: C[i, j] + 1.0, name="D")
    return te.create_prim_func([A, B, D])


def elementwise_1d(n=16, kind=ForKind.VECTORIZED, fn=None):
    """B[i] = fn(A[i]) (default A[i] * 2 + 1) over one loop of ``kind``; flat buffers."""
    A = decl_buffer((n,), "float32", "A")
    B = decl_buffer((n,), "float32", "B")
    i = Var("i")
    value = fn(A[i], i) if fn is not None else A[i] * const(2.0) + const(1.0)
    return func_of([A, B], loop(i, n, BufferStore(B, value, (i,)), kind))


def block_elementwise_2d(n=4, m=8):
    """B[vi, vj] = A[vi, vj] + 1 in one block under two loops (block TIR, hand-built)."""
    A = decl_buffer((n, m), "float32", "A")
    B = decl_buffer((n, m), "float32", "B")
    i, j, vi, vj = Var("i"), Var("j"), Var("vi"), Var("vj")
    block = Block(
        (IterVar(Range(0, n), vi, IterVarType.DataPar), IterVar(Range(0, m), vj, IterVarType.DataPar)),
        (), (), "B", BufferStore(B, A[vi, vj] + const(1.0), (vi, vj)),
    )
    body = loop(i, n, loop(j, m, BlockRealize((i, j), const(True), block)))
    root = BlockRealize((), const(True), Block((), (), (), "root", body))
    return func_of([A, B], root)


def random_args(func: PrimFunc, seed=0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for p in func.params:
        buf = func.buffer_map[p]
        shape = tuple(int(s) for s in buf.shape)
        out.append(rng.uniform(-2, 2, size=shape).astype(buf.dtype.numpy()))
    return out


def outputs_of(func: PrimFunc, args) -> list[np.ndarray]:
    """Run ``func`` on copies of ``args``; return the arrays afterwards."""
    copies = [a.copy() for a in args]
    run(func, *copies)
    return copies


def assert_same_results(before: PrimFunc, after: PrimFunc, seed=0, rtol=1e-5, atol=1e-6) -> None:
    args = random_args(before, seed)
    for x, y in zip(outputs_of(before, args), outputs_of(after, args)):
        np.testing.assert_allclose(y, x, rtol=rtol, atol=atol)


def as_mod(func: PrimFunc) -> IRModule:
    return IRModule({"main": func})


def run_llvm(func: PrimFunc, *args) -> list:
    """Build ``func`` for llvm and call it on ``args`` (numpy arrays go in as NDArrays, other
    values as they are); return the arguments afterwards, arrays as numpy."""
    import ember

    lib = ember.build(func, target="llvm")
    passed = [ember.nd.array(a) if isinstance(a, np.ndarray) else a for a in args]
    lib(*passed)
    return [a.numpy() if hasattr(a, "numpy") else a for a in passed]


__all__ = [
    "func_of", "loop", "matmul_add", "elementwise_1d", "block_elementwise_2d", "random_args",
    "outputs_of", "assert_same_results", "as_mod", "run_llvm", "tir",
]

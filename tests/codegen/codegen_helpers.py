"""Small builders of hand-written flat TIR used across the codegen tests."""

from __future__ import annotations

import numpy as np

import ember
from ember.ir import Var, const
from ember.tir import BufferStore, For, ForKind, PrimFunc, decl_buffer


def elementwise(fn, in_dtypes, out_dtype, n=None, name="main", kind=ForKind.SERIAL) -> PrimFunc:
    """``Out[i] = fn(In0[i], In1[i], …)`` over ``n`` elements (symbolic when None)."""
    extent = Var("n", "int32") if n is None else const(n, "int32")
    ins = [decl_buffer((extent,), dt, f"A{k}") for k, dt in enumerate(in_dtypes)]
    out = decl_buffer((extent,), out_dtype, "Out")
    handles = [Var(b.name, "handle") for b in ins + [out]]
    i = Var("i", "int32")
    body = For(i, const(0), extent, kind, BufferStore(out, fn(*[b[i] for b in ins]), (i,)))
    return PrimFunc(tuple(handles), body, buffer_map=dict(zip(handles, ins + [out])),
                    attrs={"global_symbol": name, "tir.noalias": True})


def run(func: PrimFunc, *inputs: np.ndarray, out_dtype: str, out_shape=None) -> np.ndarray:
    """Build ``func`` and run it on ``inputs``; returns the output array."""
    mod = ember.build(func, target="llvm")
    shape = out_shape if out_shape is not None else inputs[0].shape
    out = np.zeros(shape, dtype=ember.DataType(out_dtype).numpy())
    mod(*inputs, out)
    return out

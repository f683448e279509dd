"""Matrix products: dense (``x @ w.T``), matmul with optional transposes, batch_matmul."""

from __future__ import annotations

from ember import te
from ember.ir import DataType, IntImm
from ember.tir import op as tir_op

from ..broadcast import broadcast_shape

__all__ = ["dense", "matmul", "batch_matmul"]


def _cast(v, dtype):
    return v if v.dtype is dtype else tir_op.cast(v, dtype)


def _check_k(what, ka, kb):
    if isinstance(ka, IntImm) and isinstance(kb, IntImm) and ka.value != kb.value:
        raise ValueError(f"{what}: reduction extents differ ({ka.value} vs {kb.value})")


def matmul(tensor_a, tensor_b, bias=None, out_dtype=None, transpose_a: bool = False,
           transpose_b: bool = False) -> te.Tensor:
    """2-D ``op(a) @ op(b)`` (+ bias over the last dim), accumulated in ``out_dtype``."""
    for name, t in (("tensor_a", tensor_a), ("tensor_b", tensor_b)):
        if t.ndim != 2:
            raise ValueError(f"topi.nn.matmul: {name} must be 2-D, got shape of {t.ndim} dimension(s)")
    out_dtype = DataType(out_dtype or tensor_a.dtype)
    m, ka = (tensor_a.shape[1], tensor_a.shape[0]) if transpose_a else tensor_a.shape
    kb, n = (tensor_b.shape[1], tensor_b.shape[0]) if transpose_b else tensor_b.shape
    _check_k("topi.nn.matmul", ka, kb)
    k = te.reduce_axis((0, ka), name="k")

    def f(i, j):
        a = tensor_a[k.var, i] if transpose_a else tensor_a[i, k.var]
        b = tensor_b[j, k.var] if transpose_b else tensor_b[k.var, j]
        return te.sum(_cast(a, out_dtype) * _cast(b, out_dtype), axis=k)

    name = "T_matmul_" + ("T" if transpose_a else "N") + ("T" if transpose_b else "N")
    out = te.compute((m, n), f, name=name, tag="matmul",
                     attrs={"layout_free_placeholders": [tensor_b]})
    if bias is not None:
        out = te.compute((m, n), lambda i, j: out[i, j] + _cast(bias[j], out_dtype), name="T_add",
                         tag="broadcast")
    return out


def dense(data, weight, bias=None, out_dtype=None) -> te.Tensor:
    """``data @ weight.T`` (+ bias): data is (batch, in), weight is (out, in)."""
    return matmul(data, weight, bias, out_dtype, transpose_a=False, transpose_b=True)


def batch_matmul(tensor_a, tensor_b, oshape=None, out_dtype=None, transpose_a: bool = False,
                 transpose_b: bool = True) -> te.Tensor:
    """Batched 3-D matmul with broadcasting of a batch of 1 (``tensor_b`` transposed by default)."""
    for name, t in (("tensor_a", tensor_a), ("tensor_b", tensor_b)):
        if t.ndim != 3:
            raise ValueError(f"topi.nn.batch_matmul: {name} must be 3-D, got {t.ndim} dimension(s)")
    out_dtype = DataType(out_dtype or tensor_a.dtype)
    ba, bb = tensor_a.shape[0], tensor_b.shape[0]
    (batch,) = broadcast_shape((ba,), (bb,), "topi.nn.batch_matmul")
    m, ka = (tensor_a.shape[2], tensor_a.shape[1]) if transpose_a else tensor_a.shape[1:]
    kb, n = (tensor_b.shape[2], tensor_b.shape[1]) if transpose_b else tensor_b.shape[1:]
    _check_k("topi.nn.batch_matmul", ka, kb)
    k = te.reduce_axis((0, ka), name="k")

    def pick(t, b):
        return IntImm(b.dtype, 0) if isinstance(t.shape[0], IntImm) and t.shape[0].value == 1 else b

    def f(b, i, j):
        a = tensor_a[pick(tensor_a, b), k.var, i] if transpose_a else tensor_a[pick(tensor_a, b), i, k.var]
        w = tensor_b[pick(tensor_b, b), j, k.var] if transpose_b else tensor_b[pick(tensor_b, b), k.var, j]
        return te.sum(_cast(a, out_dtype) * _cast(w, out_dtype), axis=k)

    name = "T_batch_matmul_" + ("T" if transpose_a else "N") + ("T" if transpose_b else "N")
    return te.compute(oshape or (batch, m, n), f, name=name, tag="batch_matmul")

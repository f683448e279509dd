"""``ember.contrib.cblas``: TVM's cblas externs, ``matmul`` and ``batch_matmul``.

As in TVM, each returns a tensor computed by ``te.extern`` whose body calls the packed
function ``tvm.contrib.cblas.matmul`` / ``tvm.contrib.cblas.batch_matmul`` with the input
and output buffers and the two transpose flags.  ember has no BLAS binding: the packed
functions registered here compute with numpy (``numpy.matmul``), see docs/tvm_compat.md.
"""

from __future__ import annotations

import numpy as np

from ember import te, tir
from ember.runtime import register_func

__all__ = ["matmul", "batch_matmul"]


def _as_numpy(array):
    return array.numpy() if hasattr(array, "numpy") else np.asarray(array)


def _store(out, value):
    if hasattr(out, "copyfrom"):
        out.copyfrom(value.astype(out.dtype, copy=False))
    else:
        out[...] = value


def _product(lhs, rhs, out, transa, transb):
    a, b = _as_numpy(lhs), _as_numpy(rhs)
    a = np.swapaxes(a, -1, -2) if transa else a
    b = np.swapaxes(b, -1, -2) if transb else b
    _store(out, np.matmul(a, b))


@register_func("tvm.contrib.cblas.matmul", override=True)
def _matmul_numpy(lhs, rhs, out, transa=False, transb=False):
    """out = op(lhs) @ op(rhs) for 2-D arrays (op transposes when its flag is set)."""
    _product(lhs, rhs, out, transa, transb)


@register_func("tvm.contrib.cblas.batch_matmul", override=True)
def _batch_matmul_numpy(lhs, rhs, out, transa=False, transb=False):
    """Batched ``matmul``: the leading dimension indexes independent products."""
    _product(lhs, rhs, out, transa, transb)


def matmul(lhs, rhs, transa: bool = False, transb: bool = False, **kwargs):
    """``lhs @ rhs`` (either operand transposed by its flag) as an extern call to cblas."""
    n = lhs.shape[1] if transa else lhs.shape[0]
    m = rhs.shape[0] if transb else rhs.shape[1]
    return te.extern(
        (n, m), [lhs, rhs],
        lambda ins, outs: tir.call_packed("tvm.contrib.cblas.matmul", ins[0], ins[1], outs[0], transa, transb),
        name="C", **kwargs,
    )


def batch_matmul(lhs, rhs, transa: bool = False, transb: bool = False, iterative: bool = False, **kwargs):
    """Batched ``matmul`` of 3-D tensors (the batch dimension comes first).
    ``iterative`` is accepted for TVM compatibility; it selects no different kernel here."""
    batch = lhs.shape[0]
    n = lhs.shape[2] if transa else lhs.shape[1]
    m = rhs.shape[1] if transb else rhs.shape[2]
    return te.extern(
        (batch, n, m), [lhs, rhs],
        lambda ins, outs: tir.call_packed("tvm.contrib.cblas.batch_matmul", ins[0], ins[1], outs[0],
                                          transa, transb),
        name="C", **kwargs,
    )

"""TE definitions of standard workloads, under TVM's ``te_workload`` names and signatures.

Each function returns the tuple of tensors (inputs then output) that
``te.create_prim_func`` turns into a PrimFunc.  Products are computed in ``out_dtype``
(inputs are cast first); block names are TVM's (``C``, ``D``, ``Z``, ``conv2d_nhwc``), so
schedules and tests that look blocks up by name work unchanged.
"""

from __future__ import annotations

from ember import te, tir

__all__ = ["matmul", "matmul_relu", "batch_matmul_nkkm", "conv2d_nhwc"]


def matmul(n: int, m: int, k: int, in_dtype: str = "float32", out_dtype: str = "float32"):
    """``C[i, j] = sum_k A[i, k] * B[k, j]`` with A (n, k), B (k, m)."""
    a = te.placeholder((n, k), name="A", dtype=in_dtype)
    b = te.placeholder((k, m), name="B", dtype=in_dtype)
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((n, m), lambda i, j: te.sum(a[i, r].astype(out_dtype) * b[r, j].astype(out_dtype), axis=r),
                   name="C")
    return a, b, c


def matmul_relu(n: int, m: int, k: int, in_dtype: str = "float32", out_dtype: str = "float32"):
    """``matmul`` followed by ``D = max(C, 0)``."""
    a, b, c = matmul(n, m, k, in_dtype, out_dtype)
    d = te.compute((n, m), lambda i, j: te.max(c[i, j], tir.const(0, out_dtype)), name="D")
    return a, b, d


def batch_matmul_nkkm(b: int, n: int, m: int, k: int, in_dtype: str = "float32", out_dtype: str = "float32"):
    """``Z[b, i, j] = sum_k X[b, i, k] * Y[b, k, j]`` with X (b, n, k), Y (b, k, m)."""
    x = te.placeholder((b, n, k), name="X", dtype=in_dtype)
    y = te.placeholder((b, k, m), name="Y", dtype=in_dtype)
    r = te.reduce_axis((0, k), name="k")
    z = te.compute((b, n, m), lambda bb, i, j: te.sum(x[bb, i, r].astype(out_dtype) * y[bb, r, j].astype(out_dtype),
                                                      axis=r), name="Z")
    return x, y, z


def conv2d_nhwc(n: int, h: int, w: int, ci: int, co: int, kernel_size: int, stride: int = 1, padding: int = 0,
                dilation: int = 1, groups: int = 1, in_dtype: str = "float32", out_dtype: str = "float32"):
    """NHWC convolution: input (n, h, w, ci), weight (kh, kw, ci // groups, co), zero padding
    ``padding`` on each side (the ``PadInput`` stage), output block ``conv2d_nhwc``."""
    inputs = te.placeholder((n, h, w, ci), name="inputs", dtype=in_dtype)
    weight = te.placeholder((kernel_size, kernel_size, ci // groups, co), name="weight", dtype=in_dtype)
    oh = (h + 2 * padding - (kernel_size - 1) * dilation - 1) // stride + 1
    ow = (w + 2 * padding - (kernel_size - 1) * dilation - 1) // stride + 1
    zero = tir.const(0, in_dtype)
    padded = te.compute(
        (n, h + 2 * padding, w + 2 * padding, ci),
        lambda i0, i1, i2, i3: tir.if_then_else(
            tir.all(i1 >= padding, i1 < h + padding, i2 >= padding, i2 < w + padding),
            inputs[i0, i1 - padding, i2 - padding, i3], zero),
        name="PadInput")
    rh = te.reduce_axis((0, kernel_size), name="rh")
    rw = te.reduce_axis((0, kernel_size), name="rw")
    rc = te.reduce_axis((0, ci // groups), name="rc")
    per_group = co // groups

    def body(nn, yy, xx, cc):
        channel = rc if groups == 1 else cc // per_group * (ci // groups) + rc
        x = padded[nn, yy * stride + rh * dilation, xx * stride + rw * dilation, channel]
        return te.sum(x.astype(out_dtype) * weight[rh, rw, rc, cc].astype(out_dtype), axis=[rh, rw, rc])

    out = te.compute((n, oh, ow, co), body, name="conv2d_nhwc")
    return inputs, weight, out

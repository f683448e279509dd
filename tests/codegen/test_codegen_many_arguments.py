"""Issue 15 (found by the dtype matrix): a kernel with many buffer arguments failed to build
with RecursionError, the packed-API checks nesting one statement per check."""

import numpy as np

import ember
from ember import te


def _plus_one(A):
    return lambda i: A[i] + 1


def test_kernel_with_two_hundred_buffers_builds_and_runs():
    inputs = [te.placeholder((4,), "float32", name=f"A{k}") for k in range(100)]
    outputs = [te.compute((4,), _plus_one(A), name=f"B{k}") for k, A in enumerate(inputs)]
    f = ember.build(te.create_prim_func([*inputs, *outputs]), target="llvm")
    arrays = [np.full(4, k, "float32") for k in range(100)]
    outs = [np.zeros(4, "float32") for _ in range(100)]
    f(*arrays, *outs)
    for k, out in enumerate(outs):
        np.testing.assert_array_equal(out, k + 1)

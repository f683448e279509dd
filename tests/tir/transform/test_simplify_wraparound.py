"""Issue 15 (found by the Relax fuzzer): ``max(~x + y, y)`` on uint8 was simplified to
``~x + y``, which is wrong when the sum wraps around.  Unsigned and narrow integer values
are not rewritten by rules that assume arithmetic never overflows."""

import numpy as np
import pytest

import ember
from ember import te


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int8", "int16", "uint64"])
def test_max_of_a_wrapping_sum(dtype):
    A = te.placeholder((4,), dtype, name="A")
    B = te.placeholder((4,), dtype, name="B")
    C = te.compute((4,), lambda i: te.max(A[i] + B[i], B[i]), name="C")
    D = te.compute((4,), lambda i: te.min(A[i] + B[i], B[i]), name="D")
    f = ember.build(te.create_prim_func([A, B, C, D]), target="llvm")
    info = np.iinfo(dtype)
    a = np.array([info.max, info.max // 2 + 1, 1, 0], dtype)
    b = np.array([info.max // 2 + 1, info.max, info.max, 0], dtype)
    c, d = np.zeros(4, dtype), np.zeros(4, dtype)
    f(a, b, c, d)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(c, np.maximum(a + b, b))
        np.testing.assert_array_equal(d, np.minimum(a + b, b))

"""A vector load at min(ramp, m) (a padded copy's clamped columns) is one vector load
while the whole ramp is below the clamp, and the lane-by-lane gather only at the end."""

import numpy as np
import pytest

import ember as tvm
from ember import te, tir

pytest.importorskip("ember.arith")


def _padded_copy():
    """P[i] = A[min(i, n - 1)] for i < ceil(n / 16) * 16, vectorised by 16 lanes."""
    n = te.var("n", "int64")
    A = te.placeholder((n,), name="A")
    padded = (n + 15) // 16 * 16
    P = te.compute((padded,), lambda i: A[te.min(i, n - 1)], name="P")
    sch = tir.Schedule(te.create_prim_func([A, P]))
    (i,) = sch.get_loops(sch.get_block("P"))
    _, lane = sch.split(i, [None, 16])
    sch.vectorize(lane)
    return sch.mod


@pytest.mark.parametrize("n", [1, 15, 16, 17, 40, 64])
def test_clamped_copy_matches_numpy(n):
    kernel = tvm.build(_padded_copy(), target="llvm")
    a = np.arange(n, dtype="float32") + 1
    out = tvm.nd.array(np.zeros((n + 15) // 16 * 16, "float32"))
    kernel(tvm.nd.array(a), out)
    np.testing.assert_array_equal(out.numpy(), a[np.minimum(np.arange(out.shape[0]), n - 1)])


def test_whole_ramps_load_as_vectors():
    kernel = tvm.build(_padded_copy(), target="llvm")
    ll = kernel.get_source("ll-unopt")
    assert "ramp_then" in ll and "load <16 x float>" in ll

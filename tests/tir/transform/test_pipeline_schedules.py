"""The lowering pipeline preserves semantics on scheduled programs (property test vs numpy)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import te, tir
from ember.tir import transform as T
from ember.tir.interpreter import run


def _matmul(n, m, k):
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="r")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    D = te.compute((n, m), lambda i, j: tir.max(C[i, j], tir.const(0.0)), name="D")
    return te.create_prim_func([A, B, D])


@settings(max_examples=12, deadline=None)
@given(
    ti=st.sampled_from([1, 2, 3, 4]),
    tj=st.sampled_from([2, 4, 5, 8]),
    inner_kind=st.sampled_from(["vectorize", "unroll", "serial"]),
    outer_parallel=st.booleans(),
    fuse_consumer=st.booleans(),
)
def test_scheduled_matmul_relu_matches_numpy(ti, tj, inner_kind, outer_parallel, fuse_consumer):
    n, m, k = 6, 8, 5
    sch = tir.Schedule(_matmul(n, m, k))
    c = sch.get_block("C")
    i, j, r = sch.get_loops(c)
    io, ii = sch.split(i, [None, ti])
    jo, ji = sch.split(j, [None, tj])
    sch.reorder(io, jo, r, ii, ji)
    if inner_kind == "vectorize":
        sch.vectorize(ji)
    elif inner_kind == "unroll":
        sch.unroll(ii)
    if outer_parallel:
        sch.parallel(io)
    if fuse_consumer:
        sch.reverse_compute_at(sch.get_block("D"), jo)
    mod = T.lower_for_codegen(sch.mod, verify=True)
    T.check_lowered(mod)
    rng = np.random.default_rng(ti * 100 + tj)
    a = rng.uniform(-1, 1, (n, k)).astype("float32")
    b = rng.uniform(-1, 1, (k, m)).astype("float32")
    d = np.zeros((n, m), "float32")
    run(mod["main"], a, b, d)
    np.testing.assert_allclose(d, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)

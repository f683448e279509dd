"""Property: the default CPU rules preserve semantics for random (odd) shapes."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, topi
from ember.dlight import cpu, schedule_func
from ember.target import Target

TARGET = Target("llvm")
dims = st.integers(min_value=1, max_value=70)


def _compile(func):
    scheduled = schedule_func(func, "f", cpu.default_rules(), TARGET)
    assert scheduled.attrs.get("tir.is_scheduled")
    return ember.build(scheduled, target="llvm")


@settings(max_examples=6, deadline=None)
@given(m=dims, k=dims, n=dims)
def test_matmul_bias_gelu_like(m, k, n):
    a, w, b = te.placeholder((m, k), name="A"), te.placeholder((k, n), name="W"), te.placeholder((n,), name="b")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * w[r, j], axis=r), name="C")
    d = topi.tanh(topi.add(c, b))
    mod = _compile(te.create_prim_func([a, w, b, d]))
    rng = np.random.default_rng(m * n + k)
    av, wv, bv = (rng.standard_normal(s).astype("float32") for s in ((m, k), (k, n), (n,)))
    out = np.zeros((m, n), "float32")
    mod(av, wv, bv, out)
    np.testing.assert_allclose(out, np.tanh(av @ wv + bv), rtol=1e-4, atol=1e-4)


@settings(max_examples=6, deadline=None)
@given(rows=dims, cols=dims)
def test_broadcast_and_row_reduction(rows, cols):
    x, v = te.placeholder((rows, cols), name="X"), te.placeholder((cols,), name="v")
    y = topi.max(topi.multiply(x, v), axis=1)
    mod = _compile(te.create_prim_func([x, v, y]))
    rng = np.random.default_rng(rows + cols)
    xv, vv = rng.standard_normal((rows, cols)).astype("float32"), rng.standard_normal(cols).astype("float32")
    out = np.zeros(rows, "float32")
    mod(xv, vv, out)
    np.testing.assert_allclose(out, (xv * vv).max(1), rtol=1e-6)

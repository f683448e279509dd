"""Property: the default CPU rules preserve semantics for random (odd) shapes."""

import numpy as np
from hypothesis import example, given, settings
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


@settings(max_examples=12, deadline=None)
@given(rows=st.integers(min_value=1, max_value=9), cols=st.integers(min_value=17, max_value=1100),
       op=st.sampled_from(["softmax", "layer_norm", "sum", "max"]))
@example(rows=4, cols=1000, op="sum")
@example(rows=3, cols=1001, op="softmax")
def test_ragged_rows_accumulate_in_vectors_exactly(rows, cols, op):
    """Rows the vector width does not divide: whole vectors of partial results plus a tail run
    lane by lane must still reduce every element exactly once."""
    x = te.placeholder((rows, cols), name="X")
    if op == "softmax":
        y, ref = topi.nn.softmax(x, axis=-1), lambda v: np.exp(v - v.max(1, keepdims=True)) / np.exp(
            v - v.max(1, keepdims=True)).sum(1, keepdims=True)
    elif op == "layer_norm":
        g, b = te.placeholder((cols,), name="g"), te.placeholder((cols,), name="b")
        y = topi.nn.layer_norm(x, g, b, axis=[-1], epsilon=1e-5)
        ref = lambda v: (v - v.mean(1, keepdims=True)) / np.sqrt(v.var(1, keepdims=True) + 1e-5)  # noqa: E731
    else:
        y, ref = getattr(topi, op)(x, axis=1), lambda v: getattr(v, op)(1)
    params = [x, g, b, y] if op == "layer_norm" else [x, y]
    mod = _compile(te.create_prim_func(params))
    xv = np.random.default_rng(rows * cols).standard_normal((rows, cols)).astype("float32")
    out = np.zeros([int(d) for d in y.shape], "float32")
    extra = [np.ones(cols, "float32"), np.zeros(cols, "float32")] if op == "layer_norm" else []
    mod(xv, *extra, out)
    np.testing.assert_allclose(out, ref(xv.astype("float64")), rtol=2e-5, atol=2e-5)

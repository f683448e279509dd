"""dlight.cpu.Reduction on rows of symbolic length: the row reductions accumulate in a
vector (rfactor over a split with a tail predicate, which compute_at must keep), and the
results stay exact for every length, ragged ones included."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, tir, topi
from ember.dlight import cpu, schedule_func
from ember.target import Target

TARGET = Target("llvm")


def _build(make):
    n = te.var("n", "int64")
    x = te.placeholder((tir.const(3, "int64"), n), name="X")
    func = te.create_prim_func([x, make(x)])
    scheduled = schedule_func(func, "f", cpu.default_rules(), TARGET)
    return scheduled, ember.build(scheduled, target="llvm")


def _softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def test_symbolic_softmax_accumulates_in_vectors():
    scheduled, mod = _build(lambda x: topi.nn.softmax(x, axis=1))
    assert "_rf" in scheduled.script()  # partial results per lane
    for n in (1, 5, 16, 17, 33, 100, 128):
        xv = np.random.default_rng(n).standard_normal((3, n)).astype("float32")
        out = np.zeros((3, n), "float32")
        mod(xv, out)
        np.testing.assert_allclose(out, _softmax(xv), rtol=1e-5, atol=1e-6)


@settings(max_examples=6, deadline=None)
@given(n=st.integers(min_value=1, max_value=150), op=st.sampled_from(["sum", "max", "softmax"]))
def test_symbolic_row_reductions_property(n, op):
    make = {"sum": lambda x: topi.sum(x, axis=1), "max": lambda x: topi.max(x, axis=1),
            "softmax": lambda x: topi.nn.softmax(x, axis=1)}[op]
    _, mod = _build(make)
    xv = np.random.default_rng(n).standard_normal((3, n)).astype("float32")
    want = {"sum": lambda v: v.sum(1), "max": lambda v: v.max(1), "softmax": _softmax}[op](xv)
    out = np.zeros(want.shape, "float32")
    mod(xv, out)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)

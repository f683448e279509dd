"""VectorizeLoop's guarded form: a vector loop whose body is ``if <tail predicate>: S``
runs whole vectors as vector code and the ragged tail serially, with the same results."""

import logging

import numpy as np
import pytest

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.target import Target

TARGET = Target("llvm")


@pytest.mark.parametrize("n", [17, 33, 1001])
def test_ragged_elementwise_is_vectorized_with_guard(n, caplog):
    x = te.placeholder((n,), name="X")
    func = te.create_prim_func([x, topi.exp(x)])
    sch = ember.tir.Schedule(func)
    (loop,) = sch.get_loops(sch.get_block("T_exp"))
    _, inner = sch.split(loop, factors=[None, 16])
    sch.vectorize(inner)
    with caplog.at_level(logging.DEBUG, logger="ember.tir.transform"):
        mod = ember.build(sch.mod, target="llvm")
    assert "vectorized with a guard" in caplog.text
    xv = np.random.default_rng(n).standard_normal(n).astype("float32")
    out = np.zeros_like(xv)
    mod(xv, out)
    np.testing.assert_allclose(out, np.exp(xv), rtol=1e-6)


@pytest.mark.parametrize("cols", [1001, 37])
def test_ragged_softmax_rows(cols):
    x = te.placeholder((5, cols), name="X")
    sch = cpu.Reduction().apply(te.create_prim_func([x, topi.nn.softmax(x, axis=-1)]), TARGET, False)
    mod = ember.build(sch.mod, target="llvm")
    xv = np.random.default_rng(cols).standard_normal((5, cols)).astype("float32")
    out = np.zeros_like(xv)
    mod(xv, out)
    e = np.exp(xv - xv.max(-1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_symbolic_rows_elementwise_guarded():
    n = te.var("n", "int64")
    x = te.placeholder((n, 24), name="X")
    func = te.create_prim_func([x, topi.sigmoid(x)])
    sch = cpu.Elementwise().apply(func, TARGET, False)
    mod = ember.build(sch.mod, target="llvm")
    for rows in (1, 3, 50):
        xv = np.random.default_rng(rows).standard_normal((rows, 24)).astype("float32")
        out = np.zeros_like(xv)
        mod(xv, out)
        np.testing.assert_allclose(out, 1 / (1 + np.exp(-xv)), rtol=1e-5)


def test_concat_rows_vectorized_with_lane_invariant_select(caplog):
    """Concat reads one input or the other per row: the select's condition does not depend
    on the lane, so the row is copied as vectors (only the taken input is read)."""
    from ember import tir

    i64 = lambda v: tir.const(v, "int64")  # noqa: E731
    a = te.placeholder((i64(1), i64(3), i64(5), i64(37)), name="A")
    b = te.placeholder((i64(1), i64(2), i64(5), i64(37)), name="B")
    c = topi.concatenate([a, b], axis=1)
    sch = cpu.Elementwise().apply(te.create_prim_func([a, b, c]), TARGET, False)
    with caplog.at_level(logging.DEBUG, logger="ember.tir.transform"):
        mod = ember.build(sch.mod, target="llvm")
    assert "vectorized with a guard" in caplog.text
    rng = np.random.default_rng(0)
    av, bv = rng.standard_normal((1, 3, 5, 37)).astype("float32"), rng.standard_normal((1, 2, 5, 37)).astype("float32")
    out = np.zeros((1, 5, 5, 37), "float32")
    mod(av, bv, out)
    np.testing.assert_array_equal(out, np.concatenate([av, bv], 1))

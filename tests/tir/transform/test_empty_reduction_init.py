"""Issue 15: a reduction over a zero-length axis writes its init value (the ``k == 0``
guard inside the loop never ran, so the output kept its old contents)."""

import numpy as np
import pytest

import ember
from ember import te, tir
from ember.tir.interpreter import run


def _row_reduce(kind: str):
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((m, n), "float32", name="A")
    k = te.reduce_axis((0, n), "k")
    B = te.compute((m,), lambda i: getattr(te, kind)(A[i, k], axis=k), name="B")
    return te.create_prim_func([A, B])


INIT = {"sum": 0.0, "max": -np.inf, "min": np.inf}


@pytest.mark.parametrize("kind", sorted(INIT))
def test_empty_reduction_axis_writes_init_compiled(kind):
    f = ember.build(_row_reduce(kind), target="llvm")
    out = np.full(3, 7, "float32")
    f(np.zeros((3, 0), "float32"), out)
    np.testing.assert_array_equal(out, np.full(3, INIT[kind], "float32"))
    a = np.random.default_rng(0).random((3, 5), dtype="float32")
    f(a, out)
    np.testing.assert_allclose(out, getattr(np, kind)(a, axis=1), rtol=1e-6)


def test_empty_reduction_axis_writes_init_interpreter():
    out = np.full(3, 7, "float32")
    run(_row_reduce("sum"), np.zeros((3, 0), "float32"), out)
    np.testing.assert_array_equal(out, np.zeros(3))


def test_empty_reduction_after_split_and_reorder():
    sch = tir.Schedule(_row_reduce("sum"))
    i, k = sch.get_loops(sch.get_block("B"))
    ko, ki = sch.split(k, [None, 4])
    sch.reorder(ko, i, ki)
    f = ember.build(sch.mod, target="llvm")
    out = np.full(2, 7, "float32")
    f(np.zeros((2, 0), "float32"), out)
    np.testing.assert_array_equal(out, np.zeros(2))
    a = np.ones((2, 6), "float32")
    f(a, out)
    np.testing.assert_array_equal(out, np.full(2, 6.0))


def test_static_reductions_are_unchanged():
    A = te.placeholder((3, 4), "float32", name="A")
    k = te.reduce_axis((0, 4), "k")
    B = te.compute((3,), lambda i: te.sum(A[i, k], axis=k), name="B")
    func = te.create_prim_func([A, B])
    lowered = tir.transform.LowerInitBlock()(ember.IRModule({"main": func}))["main"]
    assert "<= 0" not in lowered.script()

"""dlight.cpu.Reduction shares with the last block only the row loops of equal extent: a
keepdims reduction followed by an elementwise use of the reduced value (layer norm's
``x - mean(x, axis=-1, keepdims=True)``, fused into one kernel since AnnotateTIROpPattern
calls such pairs OutEWiseFusable) reduces each row once, not once per element."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.target import Target
from ember.tir import For, ForKind, post_order_visit

TARGET = Target("llvm")


def _mean_subtract(shape):
    x = te.placeholder(tuple(ember.tir.const(d, "int64") for d in shape), name="x")
    mean = topi.mean(x, axis=len(shape) - 1, keepdims=True)
    return te.create_prim_func([x, topi.subtract(x, mean)])


def _parallel_extents(func) -> list:
    found: list = []
    post_order_visit(func.body, lambda n: found.append(int(n.extent.value))
                     if isinstance(n, For) and n.kind == ForKind.PARALLEL else None)
    return found


@settings(max_examples=5, deadline=None)
@given(rows=st.integers(1, 40), width=st.integers(1, 70), batch=st.integers(1, 3))
def test_keepdims_mean_then_subtract_keeps_value(rows, width, batch):
    shape = (batch, rows, width)
    sch = cpu.Reduction().apply(_mean_subtract(shape), TARGET, False)
    assert sch is not None
    mod = ember.build(sch.mod, target="llvm")
    x = np.random.default_rng(rows * width).standard_normal(shape).astype("float32")
    out = np.zeros(shape, "float32")
    mod(x, out)
    np.testing.assert_allclose(out, x - x.mean(axis=-1, keepdims=True), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(1, 128, 384), (2, 64, 96)])
def test_row_loop_is_not_the_column_loop(shape):
    sch = cpu.Reduction().apply(_mean_subtract(shape), TARGET, False)
    extents = _parallel_extents(sch.mod["main"])
    assert extents and all(e <= shape[0] * shape[1] for e in extents), extents

"""dlight.cpu's spatial schedule for a permute whose innermost row loop has a symbolic
length (BERT's qkv reshape + permute, its split): that loop stays a serial loop under the
fused, parallel outer rows, so no index divides by the symbolic length; results equal
numpy's for every size."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, tir, topi
from ember.dlight import cpu, schedule_func
from ember.target import Target

TARGET = Target("llvm -num-cores=2")


def _scheduled_and_built(func):
    """(func under the default CPU rules, its compiled kernel)."""
    scheduled = schedule_func(func, "f", cpu.default_rules(), TARGET)
    return scheduled, ember.build(scheduled, target="llvm")


def _heads_first():
    """(b, s, 3, 4, 8) -> (3, b, 4, s, 8): the attention heads' permute, b and s symbolic."""
    b, s = te.var("b", "int64"), te.var("s", "int64")
    c = lambda v: tir.const(v, "int64")  # noqa: E731
    x = te.placeholder((b, s, c(3), c(4), c(8)), name="X")
    return _scheduled_and_built(te.create_prim_func([x, topi.transpose(x, (2, 0, 3, 1, 4))]))


def test_symbolic_row_loop_is_not_fused():
    scheduled, _ = _heads_first()
    text = scheduled.script()
    assert "T.parallel" in text
    assert "// s" not in text and "% s" not in text  # no division by the symbolic length


@settings(max_examples=6, deadline=None)
@given(b=st.integers(min_value=1, max_value=3), s=st.integers(min_value=1, max_value=40))
def test_symbolic_permute_property(b, s):
    _, mod = _heads_first()
    xv = np.random.default_rng(b * 100 + s).standard_normal((b, s, 3, 4, 8)).astype("float32")
    out = np.zeros((3, b, 4, s, 8), "float32")
    mod(xv, out)
    np.testing.assert_array_equal(out, xv.transpose(2, 0, 3, 1, 4))


def _squared():
    """(b, s, 48) -> x * x with b and s symbolic (a layer norm's variance input)."""
    b, s = te.var("b", "int64"), te.var("s", "int64")
    x = te.placeholder((b, s, tir.const(48, "int64")), name="X")
    return _scheduled_and_built(te.create_prim_func([x, topi.multiply(x, x)]))


def test_symbolic_elementwise_divides_per_row_not_per_lane():
    scheduled, _ = _squared()
    text = scheduled.script()
    assert "T.vectorized" in text
    assert "* s)" not in text  # no lane index divided by a fused extent 48 * s


@settings(max_examples=6, deadline=None)
@given(b=st.integers(min_value=1, max_value=3), s=st.integers(min_value=1, max_value=40))
def test_symbolic_elementwise_property(b, s):
    _, mod = _squared()
    xv = np.random.default_rng(b * 100 + s).standard_normal((b, s, 48)).astype("float32")
    out = np.zeros_like(xv)
    mod(xv, out)
    np.testing.assert_array_equal(out, xv * xv)

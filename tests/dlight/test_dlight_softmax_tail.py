"""dlight.cpu.Reduction runs the ragged tail of a static row as one narrower vector when it
is a power of two (``loop_partition``): a softmax over 1000 classes on a 16-lane target
computes its last 8 exponentials as one 8-lane vector, not as 8 scalar ``exp`` calls."""

import numpy as np
import pytest

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.target import Target

TARGET = Target("llvm -mcpu=skylake-avx512 -num-cores=2")


def _softmax(shape):
    s = te.placeholder(shape, name="S")
    return te.create_prim_func([s, topi.nn.softmax(s, axis=-1)])


@pytest.mark.parametrize("shape", [(1, 1000), (32, 1000), (3, 24), (2, 1001), (4, 7)])
def test_softmax_rows_keep_their_value(shape):
    sch = cpu.Reduction().apply(_softmax(shape), TARGET, False)
    lib = ember.build(sch.mod, target=TARGET)
    x = np.random.default_rng(0).uniform(-4, 4, shape).astype("float32")
    out = np.zeros(shape, "float32")
    lib(x, out)
    want = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(out, want / want.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_power_of_two_tail_is_one_vector_without_scalar_exp():
    sch = cpu.Reduction().apply(_softmax((32, 1000)), TARGET, False)
    ll = ember.build(sch.mod, target=TARGET).get_source("ll")
    assert "llvm.exp.f32" not in ll  # no scalar exp left for the tail
    assert "<8 x float>" in ll  # the 8-element tail
    assert "loop_partition" in str(sch.trace)


def test_other_tails_stay_guarded_lanes():
    sch = cpu.Reduction().apply(_softmax((2, 1001)), TARGET, False)  # tail of 9: not partitioned
    assert "loop_partition" not in str(sch.trace)

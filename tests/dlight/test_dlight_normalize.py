"""dlight.cpu.normalize: unit broadcast indices become iterators and scalar blocks are
inlined, so a dense + bias + relu kernel as the ONNX importer fuses it gets the Matmul rule."""

import numpy as np
import pytest

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.dlight.cpu.normalize import normalize_for_rules
from ember.target import Target

TARGET = Target("llvm")


def _dense_bias_relu(m: int):
    x = te.placeholder((m, 64), name="X")
    w = te.placeholder((32, 64), name="W")
    b = te.placeholder((32,), name="B")
    z = te.placeholder((), name="Z")
    zero = te.compute((), lambda: z(), name="cast")  # a 0-d block, as ONNX Relu imports
    out = topi.maximum(topi.add(topi.nn.dense(x, w), b), zero)
    return te.create_prim_func([x, w, b, z, out])


def test_normalize_replaces_unit_constant_index_and_inlines_scalar_block():
    func = normalize_for_rules(_dense_bias_relu(1))
    text = func.script()
    assert "cast" not in text  # the 0-d block is gone
    assert "[T.int64(0), v" not in text and "[0, v" not in text


def test_normalize_keeps_a_function_without_such_patterns():
    x = te.placeholder((8, 8), name="X")
    func = te.create_prim_func([x, topi.exp(x)])
    assert normalize_for_rules(func) is func


@pytest.mark.parametrize("m", [1, 8])
def test_matmul_takes_dense_bias_relu_with_broadcast_epilogue(m):
    sch = cpu.Matmul().apply(_dense_bias_relu(m), TARGET, False)
    assert sch is not None
    mod = ember.build(sch.mod, target="llvm")
    rng = np.random.default_rng(m)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in ((m, 64), (32, 64), (32,)))
    z = np.zeros((), "float32")
    out = np.zeros((m, 32), "float32")
    mod(x, w, b, z, out)
    np.testing.assert_allclose(out, np.maximum(x @ w.T + b, 0), rtol=1e-4, atol=1e-5)

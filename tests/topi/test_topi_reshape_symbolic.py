"""topi.reshape / squeeze on symbolic shapes: kept leading dimensions are indexed directly
(no div/mod by a symbolic extent per element), results against numpy."""

import numpy as np
import pytest

import ember
from ember import te, tir, topi


def _i64(v):
    return tir.const(v, "int64")


def test_reshape_keeps_symbolic_prefix():
    b, s = te.var("b", "int64"), te.var("s", "int64")
    x = te.placeholder((b, s, _i64(24)), name="X")
    y = topi.reshape(x, (b, s, _i64(2), _i64(3), _i64(4)))
    func = te.create_prim_func([x, y])
    text = func.script()
    assert "// s" not in text and "% s" not in text, text
    mod = ember.build(func, target="llvm")
    for bv, sv in ((1, 1), (2, 5)):
        xv = np.random.default_rng(sv).standard_normal((bv, sv, 24)).astype("float32")
        out = np.zeros((bv, sv, 2, 3, 4), "float32")
        mod(xv, out)
        np.testing.assert_array_equal(out, xv.reshape(bv, sv, 2, 3, 4))


@pytest.mark.parametrize("shape,new", [((2, 3, 4), (6, 4)), ((2, 3, 4), (2, 12)), ((4,), (2, 2))])
def test_static_reshapes_unchanged(shape, new):
    x = te.placeholder(tuple(_i64(d) for d in shape), name="X")
    y = topi.reshape(x, tuple(_i64(d) for d in new))
    mod = ember.build(te.create_prim_func([x, y]), target="llvm")
    xv = np.arange(np.prod(shape), dtype="float32").reshape(shape)
    out = np.zeros(new, "float32")
    mod(xv, out)
    np.testing.assert_array_equal(out, xv.reshape(new))

"""Integer floordiv/floormod by a positive constant (the short code path of the LLVM codegen)
and constant integer Ramps (emitted as constant vectors) match numpy, scalar and vectorized,
negative dividends included."""

import numpy as np
import pytest

import ember
from ember import te, tir


def _kernel(op, divisor: int, vectorize: bool):
    a = te.placeholder((64,), "int32", name="A")
    out = te.compute((64,), lambda i: op(a[i] + (i * 3 - 90), divisor), name="out")
    sch = tir.Schedule(te.create_prim_func([a, out]))
    if vectorize:
        (i,) = sch.get_loops(sch.get_block("out"))
        _, inner = sch.split(i, [None, 8])
        sch.vectorize(inner)
    return ember.build(sch.mod, target="llvm")


@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("divisor", [1, 3, 7, 16])
@pytest.mark.parametrize("name", ["floordiv", "floormod"])
def test_positive_constant_divisor_matches_numpy(name, divisor, vectorize):
    op = getattr(tir, name)
    ref_op = np.floor_divide if name == "floordiv" else np.mod
    a = np.random.default_rng(divisor).integers(-50, 50, 64).astype("int32")
    out = np.zeros(64, "int32")
    _kernel(op, divisor, vectorize)(a, out)
    np.testing.assert_array_equal(out, ref_op(a + (np.arange(64) * 3 - 90), divisor))

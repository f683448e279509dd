"""merge_index_digits: a fused loop index spelled out digit by digit (``f // (s*12) * (s*s*12) +
f % (s*12) // s * (s*s) + f % s * s``) is put back together (``f * s``), so a fused symbolic
row loop divides by nothing; sums that are not such digits are left alone."""

import numpy as np
import pytest

import ember as tvm
from ember import te, tir
from ember.ir import FloorDiv, FloorMod, IntImm
from ember.tir.functor import collect
from ember.tir.transform import lower_for_codegen
from ember.tir.transform.merge_index_digits import merge_index_digits

f, s, j = (tir.Var(name, "int64") for name in ("f", "s", "j"))
C12 = tir.const(12, "int64")


@pytest.mark.parametrize("expr,expected", [
    (f // (s * C12) * s * s * C12 + f % (s * C12) // s * s * s + f % s * s, "f * s"),
    (f // (s * C12) * s * s * C12 + f % (s * C12) // s * s * s + f % s * s + j, "f * s + j"),
    (f // s * s + f % s, "f"),
    (f % s + s * (f // s), "f"),  # either order, either side of the product
    (f % (s * C12) // s * s + f % s, "f % (s * T.int64(12))"),
    (f // (s * C12) * (s * C12) + f % (s * C12) // s * s + f % s, "f"),
])
def test_digits_merge(expr, expected):
    assert merge_index_digits(expr).script() == expected


@pytest.mark.parametrize("expr", [
    f // s * (s * tir.const(2, "int64")) + f % s,  # high digit scaled twice too much
    f // s * s + j % s,  # digits of different values
    f % (s + tir.const(1, "int64")) // s * s + f % s,  # s does not divide s + 1
    f // s + f % s,
])
def test_non_digits_are_left_alone(expr):
    assert merge_index_digits(expr) is expr


def _softmax_rows():
    """softmax over the last axis of a (b, 12, s, s) tensor, rows fused as the dlight rule does."""
    b, n = te.var("b", "int64"), te.var("s", "int64")
    x = te.placeholder((b, C12, n, n), name="x")
    y = tvm.topi.nn.softmax(x, axis=-1)
    mod = tvm.IRModule({"main": te.create_prim_func([x, y])})
    from ember import dlight

    with tvm.target.Target("llvm"):
        return dlight.ApplyDefaultSchedule(dlight.cpu.Reduction())(mod)


def test_fused_symbolic_rows_divide_by_nothing():
    lowered = lower_for_codegen(_softmax_rows(), tvm.target.Target("llvm"))["main"]
    divisions = [d for d in collect(lowered.body, lambda x: isinstance(x, FloorDiv | FloorMod))
                 if not isinstance(d.b, IntImm)]
    assert divisions == []
    kernel = tvm.build(_softmax_rows(), target="llvm")
    rng = np.random.default_rng(3)
    for shape in [(1, 12, 5, 5), (2, 12, 17, 17)]:
        a = rng.standard_normal(shape).astype("float32")
        out = tvm.nd.array(np.zeros_like(a))
        kernel(tvm.nd.array(a), out)
        e = np.exp(a - a.max(-1, keepdims=True))
        np.testing.assert_allclose(out.numpy(), e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)

"""Property test: random expression trees compiled by LLVM agree with the reference
interpreter (ember.tir.interpreter) bit for bit."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember
from ember.ir import EQ, LT, Add, Cast, DataType, Div, FloorDiv, FloorMod, Max, Min, Mod, Mul, Select, Sub, const
from ember.tir import interpreter

from codegen_helpers import elementwise

I64, F64 = DataType("int64"), DataType("float64")
N = 16


def _nonzero(d):
    return Select(EQ(d, const(0, d.dtype)), const(1, d.dtype), d)


_INT_OPS = [
    lambda x, y: Add(x, y), lambda x, y: Sub(x, y), lambda x, y: Mul(x, y),
    lambda x, y: Min(x, y), lambda x, y: Max(x, y),
    lambda x, y: FloorDiv(x, _nonzero(y)), lambda x, y: FloorMod(x, _nonzero(y)),
    lambda x, y: Div(x, _nonzero(y)), lambda x, y: Mod(x, _nonzero(y)),
    lambda x, y: Select(LT(x, y), x, Sub(y, x)),
    lambda x, y: Cast(I64, Cast(DataType("int8"), Add(x, y))),
]
_FLOAT_OPS = [
    lambda x, y: Add(x, y), lambda x, y: Sub(x, y), lambda x, y: Mul(x, y),
    lambda x, y: Min(x, y), lambda x, y: Max(x, y),
    lambda x, y: Div(x, Add(Mul(y, y), const(1.0, "float64"))),
    lambda x, y: Select(LT(x, y), x, y),
    lambda x, y: Cast(F64, Cast(DataType("float32"), Sub(x, y))),
]


def _tree(ops, dtype, depth):
    leaf = st.sampled_from(["a", "b", "c1", "c2"])
    if depth == 0:
        return leaf.map(lambda name: ("leaf", name))
    sub = _tree(ops, dtype, depth - 1)
    return st.one_of(leaf.map(lambda name: ("leaf", name)),
                     st.tuples(st.integers(0, len(ops) - 1), sub, sub).map(lambda t: ("op",) + t))


def _build(tree, ops, a, b, dtype):
    if tree[0] == "leaf":
        return {"a": a, "b": b, "c1": const(3, dtype), "c2": const(-7, dtype)}[tree[1]]
    _, k, left, right = tree
    return ops[k](_build(left, ops, a, b, dtype), _build(right, ops, a, b, dtype))


def _check(tree, ops, dtype, a, b):
    func = elementwise(lambda x, y: _build(tree, ops, x, y, DataType(dtype)), [dtype, dtype], dtype)
    compiled = np.zeros(N, dtype)
    ember.build(func, target="llvm")(a, b, compiled)
    reference = np.zeros(N, dtype)
    interpreter.run(func, a, b, reference)
    np.testing.assert_array_equal(compiled, reference)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=_tree(_INT_OPS, "int64", 3), seed=st.integers(0, 2**16))
def test_int64_expressions(tree, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-50, 50, N).astype("int64")
    b = rng.integers(-50, 50, N).astype("int64")
    _check(tree, _INT_OPS, "int64", a, b)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=_tree(_FLOAT_OPS, "float64", 3), seed=st.integers(0, 2**16))
def test_float64_expressions(tree, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(N) * 10
    b = rng.standard_normal(N) * 10
    _check(tree, _FLOAT_OPS, "float64", a, b)

"""narrow_predicate_expression: a predicate free of some variables that implies the original."""

import itertools

import pytest

from ember import tir
from ember.arith import Analyzer, narrow_predicate_expression
from ember.ir import Range, structural_equal

i = tir.Var("i", "int32")
n = tir.Var("n", "int32")
RANGES = {n: Range(0, 8)}


def _holds(pred, **values) -> bool:
    expr = tir.stmt_functor.substitute(pred, {v: tir.const(values[v.name], "int32") for v in (i, n)
                                              if v.name in values})
    return bool(Analyzer().simplify(expr).value)


@pytest.mark.parametrize("pred", [
    i < n, i <= n, i > n, i >= n, n < i, i == n, i != n, (i + n) // 4 == 0, i - n < 10,
    tir.Not(i < n), tir.all(i > n, i < 20), tir.any(i < n * 2, i > 30), tir.min(i, n) < 3,
])
def test_result_implies_predicate_for_every_value(pred):
    narrowed = narrow_predicate_expression(pred, RANGES)
    for iv, nv in itertools.product(range(-12, 40), range(0, 8)):
        if _holds(narrowed, i=iv):
            assert _holds(pred, i=iv, n=nv), (pred, narrowed, iv, nv)


def test_ranged_variable_replaced_by_the_hardest_bound():
    assert structural_equal(narrow_predicate_expression(i > n, RANGES), i > tir.const(7, "int32"))
    assert structural_equal(narrow_predicate_expression(i < n, RANGES), i < tir.const(0, "int32"))


def test_non_monotonic_parts_give_false():
    buf = tir.decl_buffer((16,), "int32", name="buf")
    for pred in (i % 8 == n, i // n == 0, tir.BufferLoad(buf, (i,)) > 0):
        out = narrow_predicate_expression(pred, RANGES)
        assert out.dtype == "bool" and out.value == 0


def test_unrelated_predicate_is_unchanged():
    pred = i > 5
    assert narrow_predicate_expression(pred, RANGES) is pred


def test_bad_arguments_are_reported():
    with pytest.raises(TypeError, match="pred"):
        narrow_predicate_expression(3, RANGES)
    with pytest.raises(TypeError, match="ranges"):
        narrow_predicate_expression(i > n, {"n": Range(0, 8)})

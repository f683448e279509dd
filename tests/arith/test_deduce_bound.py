"""deduce_bound: the values of a variable that satisfy a comparison."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import tir
from ember.arith import IntervalSet, deduce_bound, evaluate
from ember.arith.int_set import is_neg_inf, is_pos_inf

A, B, C = tir.Var("a"), tir.Var("b"), tir.Var("c")


def _int(e):
    return int(evaluate(e, {}))


@pytest.mark.parametrize("cond, lo, hi", [
    (A // 8 > 3, 32, None),
    (A // 8 <= 3, None, 31),
    (A // -8 < 3, -23, None),
    (A * 4 + 3 < 17, None, 3),
    (17 < A * -4 + 3, None, -4),
    (A * 5 == -10, -2, -2),
    (10 == A, 10, 10),
])
def test_constant_bounds(cond, lo, hi):
    s = deduce_bound(A, cond, {}, {})
    assert (is_neg_inf(s.min_value) if lo is None else _int(s.min_value) == lo), s
    assert (is_pos_inf(s.max_value) if hi is None else _int(s.max_value) == hi), s


@pytest.mark.parametrize("cond", [
    A + B,  # not a comparison
    A * 2 - A > B,  # the variable twice
    tir.max(A, 5) < 3,
    A % 16 < 10,
    A // 8 == 3,  # a range of solutions, not a point
    A * 4 == B,  # no integer solution can be promised
    8 // A >= 2,  # the variable in a divisor
])
def test_unsupported_is_nothing(cond):
    assert deduce_bound(A, cond, {B: IntervalSet(2, 3)}, {}).is_nothing()


def test_relaxed_variables_take_the_safe_end():
    # b*3 + a//8 < 63 for every b in [2, 6]: a//8 <= 62 - 18
    s = deduce_bound(A, B * 3 + A // 8 < 63, {B: IntervalSet(2, 6)}, {B: IntervalSet(2, 6)})
    assert _int(s.max_value) == 359 and is_neg_inf(s.min_value)


def test_symbolic_factor_sign_comes_from_hints():
    s = deduce_bound(A, B * A == B, {B: IntervalSet(2, 3)}, {})
    assert _int(s.min_value) == 1 and _int(s.max_value) == 1
    s = deduce_bound(A, -B * A + C >= 0, {B: IntervalSet(2, 3), C: IntervalSet(10, 15)}, {})
    assert is_neg_inf(s.min_value) and not is_pos_inf(s.max_value)


_CMPS = [tir.LT, tir.LE, tir.GT, tir.GE]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_CMPS), st.sampled_from([-6, -3, -1, 1, 2, 5]), st.integers(-9, 9),
       st.integers(-30, 30), st.booleans(), st.integers(0, 3), st.integers(0, 4))
def test_every_value_in_the_answer_satisfies_the_condition(cmp, k, c0, rhs, div, blo, bext):
    lhs = (A // k if div else A * k) + B * 2 + c0
    cond = cmp(lhs, rhs)
    bs = IntervalSet(blo, blo + bext)
    s = deduce_bound(A, cond, {B: bs}, {B: bs})
    assert not s.is_nothing()
    lo = None if is_neg_inf(s.min_value) else _int(s.min_value)
    hi = None if is_pos_inf(s.max_value) else _int(s.max_value)
    assert lo is None or hi is None
    edge = lo if lo is not None else hi
    step = 1 if lo is not None else -1
    for a, b in itertools.product(range(edge, edge + step * 12, step), range(blo, blo + bext + 1)):
        assert evaluate(cond, {A: a, B: b}), (cond, s, a, b)

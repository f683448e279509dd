"""Rule families of the rewrite simplifier, checked exactly (TVM's spelling of the result)
and by value: every rewritten expression must evaluate like the original on random
inputs that satisfy the case's precondition (divisors are never zero)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import tir
from ember.arith import Analyzer, evaluate
from ember.ir import structural_equal

X, Y, Z = tir.Var("x"), tir.Var("y"), tir.Var("z")
fld, flm, tdiv, tmod = tir.floordiv, tir.floormod, tir.truncdiv, tir.truncmod


def _simplify(before, cond=None):
    ana = Analyzer()
    if cond is None:
        return ana.rewrite_simplify(before)
    with ana.constraint_scope(cond):
        return ana.rewrite_simplify(before)


def _check(before, expected, cond=None):
    after = _simplify(before, cond)
    expected = tir.const(expected) if isinstance(expected, bool | int) else expected
    assert structural_equal(after, expected), f"{before!r} -> {after!r}, want {expected!r}"


# (before, expected, precondition or None)
FACTORING = [
    (X * Y + X * 10, X * (Y + 10), None),
    (Y * X - X, X * (Y + -1), None),
    (Y * X - Z * X, X * (Y - Z), None),
    ((X - Y) * -2, (Y - X) * 2, None),
    (Y * 5 - fld(Y + Z, 2) * 10, None, None),
]


@pytest.mark.parametrize("before, expected, cond", [c for c in FACTORING if c[1] is not None])
def test_factoring_forms(before, expected, cond):
    _check(before, expected, cond)


def _all_cases():
    return FACTORING


_values = st.integers(-40, 40)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_all_cases()), st.lists(st.tuples(_values, _values, _values), min_size=8, max_size=8))
def test_rules_keep_value(case, points):
    before, _, cond = case
    after = _simplify(before, cond)
    for x, y, z in points:
        env = {X: x, Y: y, Z: z}
        if cond is not None and not evaluate(cond, env):
            continue
        try:
            want = evaluate(before, env)
        except ZeroDivisionError:
            continue
        assert evaluate(after, env) == want, (before, after, env)

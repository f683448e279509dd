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

NONNEG = tir.all(X >= 0, Y >= 0, Z >= 0)
SYMBOLIC_DIVISOR = [
    (fld(X + Y, X), fld(Y, X) + 1, X >= 0),
    (fld(X * Z + Y, Z), X + fld(Y, Z), None),
    (fld(Y + X * Z, Z), fld(Y, Z) + X, None),
    (fld(X * Z * 2 + Y, Z * 2), X + fld(Y, Z * 2), None),
    (flm(X * Z * 2 + Y, Z * 2), flm(Y, Z * 2), None),
    (fld(X * Y, Y), X, None),
    (tdiv(X, X), 1, None),
    (tdiv(X * Z + Y, Z), X + tdiv(Y, Z), NONNEG),
    (tdiv(Y + (Z + X), X), tdiv(Y + Z, X) + 1, NONNEG),
    (tdiv(X * Z - Y, Z), None, None),  # x*z - y may change sign: truncation keeps it
    (tmod(X * Z + Y, Z), tmod(Y, Z), NONNEG),
]
RECOMBINE = [
    (Y - fld(Y + Z, 5) * 5, flm(Y + Z, 5) - Z, None),
    (fld(Y - Z, 5) * 5 - Y, 0 - flm(Y - Z, 5) - Z, None),
    (fld(Y - 6, 5) * 5 - Y, -6 - flm(Y + 4, 5), None),
    (tdiv(Y - Z, 3) * 6 - Y * 2, (0 - tmod(Y - Z, 3) - Z) * 2, None),
    (Y - tdiv(Y, -5) * -5, tmod(Y, 5), None),
    (tmod(X * 10 + Y, -2), tmod(Y, 2), NONNEG),
]

AND_DIV_MOD = [
    (tir.And(fld(X, 8) == 3, flm(X, 8) == 4), X == 28, None),
    (tir.And(flm(X, 8) == 4, fld(X, 8) == -3), X == -20, None),
    (tir.And(fld(X, 10) == 5, flm(X, 10) < 7), tir.And(tir.LE(50, X), X < 57), None),
    (tir.And(fld(X, 10) == -5, flm(X, 10) <= 7), tir.And(tir.LE(-50, X), X <= -43), None),
    (tir.And(fld(X, 10) == 5, tir.LT(7, flm(X, 10))), tir.And(tir.LT(57, X), X < 60), None),
    (tir.And(X < 20, flm(X, 5) < 2), tir.And(X < 17, flm(X, 5) < 2), None),
    (tir.And(X <= -21, flm(X, 5) < 2), tir.And(X < -23, flm(X, 5) < 2), None),
    (tir.And(flm(X, 5) < 2, X < 20), tir.And(flm(X, 5) < 2, X < 17), None),
    (tir.And(X > 3, flm(X, 5) < 2), None, None),
    (tir.And(X > 3, tir.LT(2, flm(X, 5))), None, None),
    (tir.And(0 <= X - Y * 5, X - Y * 5 < 5), Y == fld(X, 5), None),
    (tir.And(Y * 4 <= X + Z, X + Z < Y * 4 + 4), None, None),
    (tir.And(Y * 4 <= X + Z, X + Z < Y * 4 + 3), None, None),
]


def test_truncating_division_keeps_sign_changes():
    assert isinstance(_simplify(tdiv(X * Z - Y, Z)), tir.Div)


@pytest.mark.parametrize("before, expected, cond", [c for c in SYMBOLIC_DIVISOR + RECOMBINE + AND_DIV_MOD
                                                    if c[1] is not None])
def test_division_forms(before, expected, cond):
    _check(before, expected, cond)


@pytest.mark.parametrize("before, expected, cond", [c for c in FACTORING if c[1] is not None])
def test_factoring_forms(before, expected, cond):
    _check(before, expected, cond)


def _all_cases():
    return FACTORING + SYMBOLIC_DIVISOR + RECOMBINE + AND_DIV_MOD


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
        assert bool(evaluate(after, env)) == bool(want) if before.dtype.is_bool else \
            evaluate(after, env) == want, (before, after, env)


@pytest.mark.parametrize("before, expected, cond", AND_DIV_MOD)
def test_and_div_mod_keeps_value_exhaustively(before, expected, cond):
    after = _simplify(before, cond)
    for x in range(-70, 71):
        for y in (-3, 0, 2, 11):
            for z in (-1, 0, 3):
                env = {X: x, Y: y, Z: z}
                assert bool(evaluate(after, env)) == bool(evaluate(before, env)), (before, after, env)

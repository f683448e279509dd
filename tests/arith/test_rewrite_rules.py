"""Rule families of the rewrite simplifier, checked exactly (TVM's spelling of the result)
and by value: every rewritten expression must evaluate like the original on random
inputs that satisfy the case's precondition (divisors are never zero)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rewrite_checks import X, Y, Z, assert_keeps_value, assert_rewrites_to, rewrite_under

from ember import tir
from ember.arith import Analyzer
from ember.ir import structural_equal

fld, flm, tdiv, tmod = tir.floordiv, tir.floormod, tir.truncdiv, tir.truncmod


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

CONST_DIVISOR = [
    (fld(X * 360 + Y, 16), X * 22, tir.all(X >= 0, X < 2, Y >= 0, Y < 7)),
    (fld(X * 32 + Y, 64), fld(X, 2), tir.all(Y >= 0, Y < 32)),
    (fld(X * 128 + Y * 4 + Z, 512), fld(X, 4), tir.all(Y >= 0, Y < 32, Z >= 0, Z < 4)),
    (flm(X * 32 + Y, 64), flm(X, 2) * 32 + Y, tir.all(Y >= 0, Y < 32)),
    (flm(X * 360 + Y, 16), flm(X * 8 + Y, 16), None),
    (flm(X * 32 - Y, 64), None, tir.all(Y >= 0, Y < 32)),
    (fld(fld(X, 2) + 1, 3), fld(X + 2, 6), None),
    (tdiv(tdiv(X, 2) + 1, 3), tdiv(X + 2, 6), NONNEG),
    (tdiv(tdiv(X, 2) + 1, 3), None, None),
    (fld(X - flm(X, 21), 21), fld(X, 21), None),
    (fld(tir.min(X * 6, Y), 2), tir.min(X * 3, fld(Y, 2)), None),
    (tdiv(tir.max(Y, X * 6), 2), tir.max(tdiv(Y, 2), X * 3), None),
    (tdiv(tir.min(X * 6, Y), 4), None, None),
    (tdiv(X * 2, 4), tdiv(X, 2), None),
    (tmod(X * 6 + 3, 9), tmod(X * 2 + 1, 3) * 3, None),
    (tdiv(X * 4 + 2, -6), tdiv(X * 2 + 1, -3), None),
]

MOD_TWO = [
    (flm(X, 2) + flm(X + 1, 2), 1, None),
    (fld(X + 1, 2) - fld(X, 2), flm(X, 2), None),
    (fld(X + 5, 2) - fld(X - 2, 2), flm(X, 2) + 3, None),
    (fld(X + 5, 2) - fld(X - 3, 2), 4, None),
    (fld(flm(X, 2) + 1, 2), flm(X, 2), None),
    (fld(X + 1, 2) - flm(X, 2), fld(X, 2), None),
    (fld(X, 2) + flm(X, 2), fld(X + 1, 2), None),
    (flm(X + 1, 2), flm(X + 1, 2), None),
    (fld(Y + Z + 3, 2) - fld(Y + Z, 2) + flm(Y + Z + 1, 2), None, None),
]


def test_recombined_sum_keeps_the_place_of_its_terms():
    ana = Analyzer()
    i0, i1 = tir.Var("i0", "int64"), tir.Var("i1", "int64")
    ana.bind(i0, tir.Range(0, 8))
    ana.bind(i1, tir.Range(0, 3))
    flat = i0 * 3 + i1
    after = ana.simplify(fld(flat, 12) * 12 + fld(flm(flat, 12), 4) * 4 + flm(flat, 4))
    assert structural_equal(after, flat), after


def test_truncating_division_keeps_sign_changes():
    assert isinstance(rewrite_under(tdiv(X * Z - Y, Z)), tir.Div)


@pytest.mark.parametrize("before, expected, cond", [c for c in SYMBOLIC_DIVISOR + RECOMBINE + AND_DIV_MOD
                                                    + CONST_DIVISOR + MOD_TWO if c[1] is not None])
def test_division_forms(before, expected, cond):
    assert_rewrites_to(before, expected, cond)


@pytest.mark.parametrize("before, expected, cond", [c for c in FACTORING if c[1] is not None])
def test_factoring_forms(before, expected, cond):
    assert_rewrites_to(before, expected, cond)


def _all_cases():
    return FACTORING + SYMBOLIC_DIVISOR + RECOMBINE + AND_DIV_MOD + CONST_DIVISOR + MOD_TWO


_values = st.integers(-40, 40)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_all_cases()), st.lists(st.tuples(_values, _values, _values), min_size=8, max_size=8))
def test_rules_keep_value(case, points):
    before, _, cond = case
    after = rewrite_under(before, cond)
    for x, y, z in points:
        assert_keeps_value(before, after, {X: x, Y: y, Z: z}, cond)


def _sweep(before, cond, xs, ys, zs):
    after = rewrite_under(before, cond)
    for x in xs:
        for y in ys:
            for z in zs:
                assert_keeps_value(before, after, {X: x, Y: y, Z: z}, cond)


@pytest.mark.parametrize("before, expected, cond", AND_DIV_MOD)
def test_and_div_mod_keeps_value_exhaustively(before, expected, cond):
    _sweep(before, cond, range(-70, 71), (-3, 0, 2, 11), (-1, 0, 3))


@pytest.mark.parametrize("before, expected, cond", CONST_DIVISOR + SYMBOLIC_DIVISOR + MOD_TWO)
def test_division_keeps_value_exhaustively(before, expected, cond):
    _sweep(before, cond, range(-12, 13), range(-3, 36), (-2, -1, 1, 3))

"""Rewrite rules for vector lanes (truncating ramp division when no lane is negative,
zero broadcasts, broadcast chains under min/max and and/or, scalable lane counts) and for
min/max chains (an operand repeated deeper in the chain; ``max(a, b) <= t`` proven side by
side).  Scalar rules are also checked by value on random inputs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewrite_checks import X, Y, Z, assert_keeps_value, assert_rewrites_to, rewrite_under

from ember import tir
from ember.ir import structural_equal

VX = tir.Var("vx", "int32x2")
VSCALE = tir.call_intrin("int32", "tir.vscale")
tdiv, tmod, fld = tir.truncdiv, tir.truncmod, tir.floordiv


def _bc(v, n=4):
    return tir.Broadcast(v, n)


@pytest.mark.parametrize("before, expected, cond", [
    (tdiv(tir.Ramp(X * 8 + 1, 1, 4), _bc(8)), _bc(X), X >= 0),
    (tmod(tir.Ramp(X * 8 + 1, 1, 4), _bc(8)), tir.Ramp(1, 1, 4), X >= 0),
    (tdiv(tir.Ramp(X, 4, 4), _bc(2)), tir.Ramp(tdiv(X, 2), 2, 4), X >= 0),
    (tir.Ramp(X, 1, VSCALE * 4) + tir.Ramp(Y, 2, VSCALE * 4), tir.Ramp(X + Y, 3, VSCALE * 4), None),
    (tir.Cast("float32x4", tir.Ramp(X, 1, 4)) + _bc(tir.const(0.0, "float32")),
     tir.Cast("float32x4", tir.Ramp(X, 1, 4)), None),
    (tir.min(tir.min(VX, _bc(Y, 2)), _bc(X, 2)), tir.min(VX, _bc(tir.min(Y, X), 2)), None),
    (tir.max(tir.max(VX, _bc(Y, 2)), _bc(X, 2)), tir.max(VX, _bc(tir.max(Y, X), 2)), None),
    (tir.And(_bc(Y <= X, 2), _bc(Z == 1, 2)), _bc(tir.And(Y <= X, Z == 1), 2), None),
])
def test_vector_forms(before, expected, cond):
    assert_rewrites_to(before, expected, cond)


def test_truncating_ramp_division_keeps_negative_lanes():
    # x = -1: trunc(-1 / 2) = 0 but trunc(3 / 2) = 1, so the ramp is not Ramp(x / 2, 2, 4)
    before = tdiv(tir.Ramp(X, 4, 4), _bc(2))
    assert structural_equal(rewrite_under(before), before)


SCALAR = [
    (tir.min(tir.min(tir.min(tir.min(X, Y), Z), X * 2), Y), tir.min(tir.min(tir.min(X, Y), Z), X * 2), None),
    (tir.max(Y, tir.max(tir.max(X, Y), Z)), tir.max(tir.max(X, Y), Z), None),
    (tir.min(fld(X + 3, 4) * 4, tir.max(X, 4)), tir.max(X, 4), X > 0),
    (tir.min(tir.max(X, 4), tdiv(X + 3, 4) * 4), tir.max(X, 4), X > 0),
    (tir.min(fld(X + 3, 4) * 4, tir.max(X, 4)), None, None),
]


@pytest.mark.parametrize("before, expected, cond", [c for c in SCALAR if c[1] is not None])
def test_chain_forms(before, expected, cond):
    assert_rewrites_to(before, expected, cond)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SCALAR), st.lists(st.tuples(*[st.integers(-30, 30)] * 3), min_size=10, max_size=10))
def test_chain_rules_keep_value(case, points):
    before, _, cond = case
    after = rewrite_under(before, cond)
    for x, y, z in points:
        assert_keeps_value(before, after, {X: x, Y: y, Z: z}, cond)


def _ite(c, t, f):
    return tir.if_then_else(c, t, f)


BRANCHES = [
    (_ite(X > 2, _ite(X > 1, Y, Z), 0), _ite(tir.LT(2, X), Y, 0)),
    (_ite(X > 2, _ite(X < 1, Y, Z), 0), _ite(tir.LT(2, X), Z, 0)),
    (_ite(X < 5, _ite(X > 1, 1, 0), 0), _ite(tir.And(X < 5, tir.LT(1, X)), 1, 0)),
    (tir.Select(X > 2, tir.Select(X > 1, Y, Z), 7), tir.Select(tir.LT(2, X), Y, 7)),
    (_ite(X > 2, _ite(Y > 1, Y, Z), 0), None),
]


@pytest.mark.parametrize("before, expected", [c for c in BRANCHES if c[1] is not None])
def test_nested_conditional_forms(before, expected):
    assert_rewrites_to(before, expected)


@pytest.mark.parametrize("before, expected", BRANCHES)
def test_nested_conditionals_keep_value(before, expected):
    after = rewrite_under(before)
    for x in range(-3, 8):
        for y in (-2, 0, 1, 3):
            assert_keeps_value(before, after, {X: x, Y: y, Z: 11})

"""const_int_bound: infinite ends stay infinite, size vars, shifts, mixed-sign and
possibly-zero divisors of floormod, int -> float -> int casts."""

from __future__ import annotations

import itertools

import pytest

from ember import te, tir
from ember.arith import Analyzer, ConstIntBound, evaluate

INF = ConstIntBound.POS_INF


def _bound(expr, known):
    ana = Analyzer()
    for v, (lo, hi) in known.items():
        ana.update(v, ConstIntBound(lo, hi))
    b = ana.const_int_bound(expr)
    return b.min_value, b.max_value


X, Y = tir.Var("x"), tir.Var("y")


def test_infinite_ends_are_not_clamped_to_int32():
    assert _bound(tir.min(X, Y), {X: (-INF, INF), Y: (4, 10)}) == (-INF, 10)
    assert _bound(tir.max(X, Y), {X: (1, INF), Y: (4, 10)}) == (4, INF)
    assert _bound(X, {}) == (-(1 << 31), (1 << 31) - 1)  # an unknown int32 is its dtype's range


def test_size_var_is_non_negative_and_unbounded():
    assert _bound(te.size_var("n"), {}) == (0, INF)


@pytest.mark.parametrize("expr, known", [
    (X >> Y, {X: (-9, 11), Y: (2, 10)}),
    (X % Y, {X: (0, 6), Y: (-5, 7)}),
    (X % Y, {X: (-3, 6), Y: (-5, 0)}),
    (X % Y, {X: (0, 6), Y: (0, 9)}),
])
def test_bounds_contain_every_value(expr, known):
    lo, hi = _bound(expr, known)
    (xl, xh), (yl, yh) = known[X], known[Y]
    values = []
    for x, y in itertools.product(range(xl, xh + 1), range(yl, yh + 1)):
        if type(expr) is tir.Call:
            values.append(x >> y)
            continue
        if y == 0:
            continue
        values.append(evaluate(expr, {X: x, Y: y}))
    assert lo <= min(values) and max(values) <= hi


def test_tight_results():
    assert _bound(X >> Y, {X: (-9, 11), Y: (2, 10)}) == (-3, 2)
    assert _bound(X % Y, {X: (0, 6), Y: (-5, 7)}) == (-4, 6)
    assert _bound(X % Y, {X: (0, 6), Y: (0, INF)}) == (0, 6)  # the divisor is assumed non-zero


def test_int_through_float_keeps_its_bound():
    x8 = tir.Var("x", "int8")
    e = tir.truncmod(x8, 3).astype("float32").astype("int32")
    assert _bound(e, {}) == (-2, 2)
    big = tir.Var("b", "int64")
    e = big.astype("float32").astype("int32")  # float32 cannot hold every int64: no bound
    assert _bound(e, {}) == (-(1 << 31), (1 << 31) - 1)

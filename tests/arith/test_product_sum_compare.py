"""``Extension.ComparisonOfProductAndSum``: ``a*x*y + b*x + c*y + k <= 0`` decided by
completing the product; off by default.  Decisions are checked against every point of
small boxes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ember import tir
from ember.arith import Analyzer, Extension, evaluate
from ember.ir import IntImm

X, Y = tir.Var("x"), tir.Var("y")


def _simplify(expr, cond, extension=Extension.ComparisonOfProductAndSum):
    ana = Analyzer()
    ana.enabled_extensions = extension
    with ana.constraint_scope(cond):
        return ana.rewrite_simplify(expr)


def test_product_below_sum_is_proven():
    cond = tir.all(X > 0, Y > 0, X < 2048)
    assert _simplify(X * Y < (X + Y) * 2048, cond).value == 1
    box = tir.all(X > 0, Y > 0, X < 4096, Y < 4096)
    assert _simplify(X * Y * 59 < (Y + X) * 176128, box).value == 1


def test_off_without_the_extension():
    cond = tir.all(X > 0, Y > 0, X < 2048)
    after = _simplify(X * Y < (X + Y) * 2048, cond, Extension.NoExtensions)
    assert type(after) is not IntImm


@settings(max_examples=120, deadline=None)
@given(st.integers(-4, 4).filter(bool), st.integers(-30, 30), st.integers(-30, 30), st.integers(-200, 200),
       st.integers(-6, 6), st.integers(0, 8), st.integers(-6, 6), st.integers(0, 8))
def test_decisions_hold_on_the_whole_box(a, b, c, k, x_lo, x_len, y_lo, y_len):
    expr = tir.LE(X * Y * a + X * b + Y * c + k, 0)
    cond = tir.all(tir.LE(x_lo, X), tir.LE(X, x_lo + x_len), tir.LE(y_lo, Y), tir.LE(Y, y_lo + y_len))
    after = _simplify(expr, cond)
    if type(after) is not IntImm:
        return
    for x in range(x_lo, x_lo + x_len + 1):
        for y in range(y_lo, y_lo + y_len + 1):
            assert bool(evaluate(expr, {X: x, Y: y})) == bool(after.value), (expr, after, x, y)

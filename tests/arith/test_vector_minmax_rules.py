"""Rule families for Ramp/Broadcast division and modulo and for min/max factoring, checked
lane by lane (vectors) or value by value (scalars) against the unsimplified expression."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ember import tir
from ember.arith import Analyzer, evaluate
from ember.ir import Broadcast, IntImm, Ramp, structural_equal

X, Y, Z = tir.Var("x"), tir.Var("y"), tir.Var("z")


def _lane(e, i):
    """The scalar expression of lane ``i`` of a vector expression."""
    if type(e) is Ramp:
        return _lane(e.base, i) + _lane(e.stride, i) * i
    if type(e) is Broadcast:
        return _lane(e.value, i)
    from ember.ir.expr import BinaryOp

    if isinstance(e, BinaryOp):
        return type(e)(_lane(e.a, i), _lane(e.b, i))
    return e


@settings(max_examples=300, deadline=None)
@given(st.integers(-3, 3), st.integers(-9, 9), st.sampled_from([1, 2, 4, 8, 12, 16]),
       st.integers(0, 9), st.sampled_from([2, 3, 4, 5]), st.sampled_from([2, 4, 8, 64]),
       st.booleans(), st.lists(st.integers(-50, 50), min_size=1, max_size=4))
def test_ramp_div_mod_keeps_lanes(k, b0, coeff, stride, lanes, c, is_div, xs):
    base = X * coeff + b0 + k
    vec = Ramp(base, IntImm(X.dtype, stride), lanes)
    div = Broadcast(IntImm(X.dtype, c), lanes)
    before = vec // div if is_div else vec % div
    after = Analyzer().rewrite_simplify(before)
    for x in xs:
        for i in range(lanes):
            want = evaluate(_lane(before, i), {X: x})
            assert evaluate(_lane(after, i), {X: x}) == want, (before, after, x, i)


def test_ramp_rules_exact():
    a = Analyzer()
    r = a.rewrite_simplify(Ramp(X, 4, 4) // Broadcast(2, 4))
    assert structural_equal(r, Ramp(X // 2, IntImm(X.dtype, 2), 4))
    r = a.rewrite_simplify(Ramp(X * 4, 1, 4) // Broadcast(64, 4))
    assert structural_equal(r, Broadcast(X // 16, 4))
    r = a.rewrite_simplify(Ramp(X * 8 + 1, 15, 4) % Broadcast(8, 4))
    assert structural_equal(r, Ramp(IntImm(X.dtype, 1), IntImm(X.dtype, 15), 4) % Broadcast(8, 4))


_minmax = st.sampled_from([tir.min, tir.max])
_small = st.integers(-6, 6).filter(lambda v: v != 0)


@settings(max_examples=300, deadline=None)
@given(_minmax, _small, st.integers(-3, 3), st.integers(-12, 12),
       st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20), st.integers(-20, 20)),
                min_size=1, max_size=5))
def test_minmax_factoring_keeps_value(op, c1, k, c2, points):
    exprs = [
        op(X * c1, c1 * k),
        op(c2 - X, IntImm(X.dtype, k)),
        op(tir.max(X, Y), tir.max(X, Z)),
        op(tir.min(Y, X), tir.min(Z, X)),
        op(X // c1, Y // c1),
        op(X, X // abs(c1) * abs(c1)),
        op(Y + X, Z + X),
    ]
    for e in exprs:
        after = Analyzer().rewrite_simplify(e)
        for x, y, z in points:
            env = {X: x, Y: y, Z: z}
            assert evaluate(after, env) == evaluate(e, env), (e, after, env)


@settings(max_examples=300, deadline=None)
@given(_minmax, st.integers(-9, 9), st.sampled_from([1, -1]), st.sampled_from([2, 3, 9, -9]),
       st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20), st.integers(-20, 20)),
                min_size=1, max_size=5))
def test_terms_pushed_into_minmax_and_residues_dropped_keep_value(op, k, sign, c, points):
    exprs = [
        op(X, Y - Z) * sign + Z,
        op(X + 2, Y + k) - 2,
        Z * 2 + op(X, Y - Z * 2),
        op(0, 1 - X * 4) + X * 4,
        X - op(X + Y, Z),
        tir.min(X, Y * 2) + tir.max(X, Y * 2),
        (X - X % c) % c,
        (X + (0 - X) % c) % 9,
        (X + tir.truncmod(X * 8, c)) % c,
        (X - X % Y) % Y,
    ]
    for e in exprs:
        after = Analyzer().rewrite_simplify(e)
        for x, y, z in points:
            env = {X: x, Y: y, Z: z}
            try:
                want = evaluate(e, env)
            except ZeroDivisionError:
                continue
            assert evaluate(after, env) == want, (e, after, env)


def test_push_and_drop_exact():
    a = Analyzer()
    assert structural_equal(a.rewrite_simplify(tir.min(X, Y - Z) + Z), tir.min(X + Z, Y))
    assert structural_equal(a.rewrite_simplify(tir.max(0, 1 - X * 4) + X * 4),
                            tir.max(X * 4, IntImm(X.dtype, 1)))
    assert a.rewrite_simplify((X - X % 9) % 9).value == 0
    assert structural_equal(a.rewrite_simplify(tir.min(X, Y) + Z), tir.min(X, Y) + Z)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20), st.integers(-20, 20)),
                min_size=1, max_size=6))
def test_select_merging_and_minmax_products_keep_value(points):
    c = X < 0
    exprs = [
        tir.Select(c, Y, 0) + tir.Select(c, 1, Z),
        tir.Select(c, Y, 1) - tir.Select(c, 1, Z),
        tir.Select(c, Y, Z) - Y,
        tir.Select(c, Y, Z) - Z,
        tir.min(tir.Select(c, Y, 0), tir.Select(c, 1, Z)),
        tir.max(tir.Select(c, Y, 0), tir.Select(c, 1, Z)),
        tir.min(X, Y) * tir.max(X, Y),
    ]
    for e in exprs:
        after = Analyzer().rewrite_simplify(e)
        assert type(after) is not type(e) or not structural_equal(after, e)
        for x, y, z in points:
            env = {X: x, Y: y, Z: z}
            assert evaluate(after, env) == evaluate(e, env), (e, after, env)

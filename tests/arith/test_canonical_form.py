"""canonical_simplify spells sums as TVM's canonical simplifier: terms by scale, then a
positive constant, then the subtracted terms."""

import itertools

from ember import tir
from ember.arith import Analyzer, evaluate
from ember.arith.canonical_form import to_canonical_form
from ember.ir import structural_equal


def test_positive_constant_before_subtracted_terms():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    got = Analyzer().canonical_simplify(y + x * 3 - 5 * x + 1 + y)
    assert structural_equal(got, y * 2 + 1 - x * 2, map_free_vars=False)


def test_terms_ordered_by_scale():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    got = to_canonical_form(x + y * 2 + 3)
    assert structural_equal(got, y * 2 + x + 3, map_free_vars=False)
    got = to_canonical_form(tir.Div(17 + 48 * x, 16))
    assert structural_equal(got, tir.Div(x * 48 + 17, 16), map_free_vars=False)


def test_respelling_keeps_values():
    x, y, z = (tir.Var(n, "int32") for n in "xyz")
    exprs = [3 - y + x, x * -1 + 4 - z * 2, 0 - x - y - 7, (x - y * 3) // 2 + z * 5 - 1]
    for e in exprs:
        r = to_canonical_form(e)
        for point in itertools.product(range(-3, 4), repeat=3):
            env = dict(zip((x, y, z), point))
            assert evaluate(r, env) == evaluate(e, env), (e, r, point)

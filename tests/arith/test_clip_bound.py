"""detect_clip_bound: per-variable bounds from a conjunction of comparisons."""

import pytest

from ember import te, tir
from ember.arith import Analyzer, detect_clip_bound

a, b, c = te.var("a"), te.var("b"), te.var("c")


def _equal(x, y) -> bool:
    return Analyzer().can_prove_equal(x, y)


def test_both_sides_of_one_variable():
    lo, hi = detect_clip_bound(tir.all(a < b * 6, a - 1 > 0), [a])
    assert int(lo) == 2 and _equal(hi, b * 6 - 1)


def test_term_relating_two_variables_gives_nothing():
    assert detect_clip_bound(tir.all(a < b * 6, a > 1), [a, b]) == []


def test_missing_bounds_are_infinite():
    lo_a, hi_a, lo_b, hi_b = detect_clip_bound(tir.all(a + 10 * c <= 20, b - 1 > 0), [a, b])
    assert lo_a.name == "neg_inf" and hi_b.name == "pos_inf"
    assert _equal(hi_a, 20 - 10 * c) and int(lo_b) == 2


def test_not_min_and_equality():
    assert _equal(detect_clip_bound(tir.Not(a > b * 6), [a])[1], b * 6)
    assert [int(x) for x in detect_clip_bound(tir.all(tir.Min(a, b) > 3, a < 10), [a, b])[:3]] == [4, 9, 4]
    assert [int(x) for x in detect_clip_bound(tir.all(a == 4, b == 3), [a, b])] == [4, 4, 3, 3]


def test_several_terms_keep_the_tightest():
    lo, hi = detect_clip_bound(tir.all(a > 1, a > 5, a <= 9, a < 7), [a])
    assert (int(lo), int(hi)) == (6, 6)


def test_bad_arguments():
    with pytest.raises(TypeError, match="cond"):
        detect_clip_bound(3, [a])
    with pytest.raises(TypeError, match="var_list"):
        detect_clip_bound(a > 1, ["a"])

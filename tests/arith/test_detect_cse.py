"""detect_common_subexpr: repeated subexpressions and their counts."""

from ember import tir
from ember.arith import detect_common_subexpr

X, Y, Z = tir.Var("x"), tir.Var("y"), tir.Var("z")


def test_counts_structurally_equal_occurrences_keyed_by_the_first():
    first = (X + Y) * 2
    second = (X + Y) * 2
    e = first + Z * second
    found = detect_common_subexpr(e, 2)
    assert found[first] == 2
    assert second not in found  # keyed by the first occurrence (left to right)
    assert any(str(k) == "x + y" and n == 2 for k, n in found.items())


def test_leaves_are_not_counted_and_threshold_applies():
    e = X + X + X
    assert all(not isinstance(k, tir.Var) for k in detect_common_subexpr(e, 2))
    assert detect_common_subexpr(X * Y + Z, 2) == {}
    found = detect_common_subexpr((X * Y) + (X * Y) + (X * Y), 3)
    assert list(found.values()) == [3]

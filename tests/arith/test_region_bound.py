"""estimate_region_lower/upper_bound, union_lower_bound and IntSet.vector."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ember import tir
from ember.arith import (
    Analyzer, IntSet, estimate_region_lower_bound, estimate_region_upper_bound, evaluate,
)
from ember.arith.int_set import is_pos_inf, neg_inf, pos_inf, union_lower_bound
from ember.ir import Range

I, J = tir.Var("i"), tir.Var("j")


def _ends(s):
    return int(evaluate(s.min_value, {})), int(evaluate(s.max_value, {}))


def test_lower_bound_of_overlapping_steps():
    dom = {I: Range(0, 64)}
    (s,) = estimate_region_lower_bound([Range(I * 4, 8)], dom)
    assert _ends(s) == (0, 259)


def test_gaps_or_shared_iterators_have_no_lower_bound():
    dom = {I: Range(0, 64)}
    assert estimate_region_lower_bound([Range(I * 4, 2)], dom) is None
    assert estimate_region_lower_bound([Range(I, 2), Range(I + 2, 2)], dom) is None
    s0, s1 = estimate_region_upper_bound([Range(I, 2), Range(I + 2, 2)], dom)
    assert _ends(s0) == (0, 64) and _ends(s1) == (2, 66)


def test_negative_scale():
    dom = {I: Range(0, 4), J: Range(0, 4)}
    a, b = estimate_region_lower_bound([Range(1 - I, 4), Range(20 - J * 4, 16)], dom)
    assert _ends(a) == (-2, 4) and _ends(b) == (8, 35)


@settings(max_examples=120, deadline=None)
@given(st.integers(-5, 5), st.integers(-6, 6), st.integers(1, 6), st.integers(1, 9))
def test_lower_bound_is_covered_and_upper_bound_covers(scale, base, extent, n):
    dom = {I: Range(0, n)}
    rng = Range(I * scale + base, extent)
    touched = {i * scale + base + k for i in range(n) for k in range(extent)}
    (up,) = estimate_region_upper_bound([rng], dom)
    lo_u, hi_u = _ends(up)
    assert lo_u <= min(touched) and max(touched) <= hi_u
    low = estimate_region_lower_bound([rng], dom)
    if low is not None:
        lo, hi = _ends(low[0])
        assert set(range(lo, hi + 1)) <= touched


def test_union_lower_bound():
    a = IntSet(neg_inf(), 0)
    b = IntSet(1, pos_inf())
    r = union_lower_bound([a, b, IntSet.nothing()])
    assert r.min_value is neg_inf() and r.max_value is pos_inf()
    r = union_lower_bound([IntSet(0, 3), IntSet(10, 12)])  # a gap: not both
    assert _ends(r) == (0, 3)


def test_vector_sets():
    assert _ends(IntSet.vector(tir.Ramp(10, 3, 2))) == (10, 13)
    assert _ends(IntSet.vector(tir.Ramp(10, -3, 4))) == (1, 10)
    s = IntSet.vector(tir.Ramp(5, 2, tir.vscale() * 4))
    assert int(evaluate(s.min_value, {})) == 5 and is_pos_inf(s.max_value)
    assert _ends(IntSet.vector(tir.Broadcast(7, 4))) == (7, 7)


def test_upper_bound_per_dimension_when_indices_share_loops():
    # a diagonal: both indices use j and k, so they are not independent as a whole, but each
    # one alone is the affine map j*8 + k, which the predicate limits to [0, 60)
    i, j, k = tir.Var("i", "int32"), tir.Var("j", "int32"), tir.Var("k", "int32")
    index = i * 64 + j * 8 + k
    dom = {j: Range(0, 8), k: Range(0, 8)}
    bounds = estimate_region_upper_bound([Range(index, 1), Range(index, 1)], dom, j * 8 + k < 60)
    ana = Analyzer()
    for s in bounds:
        assert ana.can_prove_equal(s.min_value, i * 64)
        assert ana.can_prove_equal(s.max_value, i * 64 + 59)

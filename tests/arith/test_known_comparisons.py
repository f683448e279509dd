"""KnownComparisons: what known branch conditions prove about other comparisons."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ember import tir
from ember.arith.evaluate import evaluate
from ember.arith.known_comparisons import KnownComparisons
from ember.ir import EQ, GE, GT, LE, LT, NE, IntImm, structural_equal

I, J, K = tir.Var("i", "int32"), tir.Var("j", "int32"), tir.Var("k", "int32")
OPS = [LT, LE, GT, GE, EQ, NE]


def _rewrite(facts, query, transitive=False):
    known = KnownComparisons(transitive)
    for f in facts:
        known.add(f)
    return known.rewrite(query)


def test_direct_fact_decides_and_narrows():
    assert _rewrite([I < J], I < J + 1).value == 1
    assert _rewrite([I < J], J < I).value == 0
    assert structural_equal(_rewrite([I <= J], J <= I), EQ(J, I))
    assert structural_equal(_rewrite([I <= J], NE(I, J)), LT(I, J))
    assert structural_equal(_rewrite([NE(I, J)], I <= J), LT(I, J))
    assert structural_equal(_rewrite([I <= 0], 0 <= I), EQ(I, 0))


def test_chains_need_the_transitive_option():
    facts = [I < J, J < K + 7]
    assert _rewrite(facts, I < K + 6 + 1, transitive=False) is not None
    assert not isinstance(_rewrite(facts, I < K + 7), IntImm)
    assert _rewrite(facts, I < K + 7, transitive=True).value == 1
    assert _rewrite([EQ(I, J), NE(J, K)], NE(I, K), transitive=True).value == 1
    assert not isinstance(_rewrite([EQ(I, J), NE(J, K)], LT(I, K), transitive=True), IntImm)


def test_negated_or_gives_both_negations():
    known = KnownComparisons()
    known.add(tir.Not(tir.any(EQ(I, K), EQ(J, K))))
    assert known.rewrite(EQ(I, K)).value == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 2), st.integers(0, 2), st.integers(-2, 2)),
                min_size=1, max_size=3),
       st.sampled_from(OPS), st.integers(0, 2), st.integers(0, 2), st.integers(-2, 2), st.booleans())
def test_rewrite_keeps_the_value_wherever_the_facts_hold(facts, op, a, b, c, transitive):
    v = [I, J, K]
    known = [f(v[x], v[y] + k) for f, x, y, k in facts]
    query = op(v[a], v[b] + c)
    out = _rewrite(known, query, transitive)
    for vals in itertools.product(range(-3, 4), repeat=3):
        env = dict(zip(v, vals))
        if all(evaluate(f, env) for f in known):
            assert bool(evaluate(out, env)) == bool(evaluate(query, env)), (known, query, out, vals)

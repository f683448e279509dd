"""simplify_as_and_of_ors: boolean expressions as an AND of OR-chunks, simplified across terms."""

import itertools

from ember import tir
from ember.arith import Analyzer
from ember.arith.and_of_ors import simplify_as_and_of_ors
from ember.arith.evaluate import evaluate
from ember.ir import structural_equal

I, J, K = tir.Var("i", "int32"), tir.Var("j", "int32"), tir.Var("k", "int32")
A, B, C, D = (tir.Var(n, "bool") for n in "abcd")


def _same_truth_table(x, y, bools=(A, B, C, D)):
    for vals in itertools.product([False, True], repeat=len(bools)):
        env = dict(zip(bools, vals))
        assert bool(evaluate(x, env)) == bool(evaluate(y, env))


def test_or_distributes_over_and():
    e = tir.Or(A, tir.And(B, C))
    out = simplify_as_and_of_ors(e, Analyzer())
    assert structural_equal(out, tir.And(tir.Or(A, B), tir.Or(A, C)))
    _same_truth_table(e, out)


def test_repeated_chunk_is_dropped():
    e = tir.And(tir.Or(A, B), tir.Or(B, tir.And(tir.And(A, C), D)))
    out = simplify_as_and_of_ors(e, Analyzer())
    assert structural_equal(out, tir.And(tir.And(tir.Or(A, B), tir.Or(B, C)), tir.Or(B, D)))
    _same_truth_table(e, out)


def test_chunks_differing_in_one_term_merge():
    e = tir.And(tir.Or(tir.Or(I == 0, J == 10), K == 20), tir.Or(tir.Or(I == 0, J == 10), K != 30))
    out = simplify_as_and_of_ors(e, Analyzer())
    assert structural_equal(out, tir.Or(tir.Or(I == 0, J == 10), K == 20))


def test_terms_of_one_chunk_merge_even_when_apart():
    out = simplify_as_and_of_ors(tir.Or(tir.Or(I == 20, J == 0), I != 30), Analyzer())
    assert structural_equal(out, tir.Or(J == 0, I != 30))
    for vals in itertools.product(range(18, 32, 2), range(-1, 2)):
        env = {I: vals[0], J: vals[1]}
        assert bool(evaluate(out, env)) == (vals[0] == 20 or vals[1] == 0 or vals[0] != 30)

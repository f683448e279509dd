"""IndexMap.non_surjective_inverse of padded tilings: shifted inputs (left padding),
the padding predicate digit by digit (checked against enumeration and in its written
form), and map_shape giving the padded extent of a split's inner half."""

import itertools

import pytest

import ember
from ember.ir import assert_structural_equal, const
from ember.tir import IndexMap

CASES = [
    # forward map, input shape
    (lambda i: [i // 4, i % 4], [15]),
    (lambda i: [(i + 1) // 4, (i + 1) % 4], [15]),
    (lambda i: [(i + 1) // 4, (i + 1) % 4], [14]),
    (lambda i, j: [(i + 1) // 4, (j + 5) // 8, (i + 1) % 4, (j + 5) % 8], [14, 31]),
    (lambda i: [i // 32, (i // 4) % 8, i % 4], [116]),
    (lambda i: [(i // 4) % 8, i // 32, i % 4], [116]),
    (lambda i: [(i + 5) // 32, ((i + 5) // 4) % 8, (i + 5) % 4], [123]),
    (lambda i: [(i + 9) // 4, (i + 9) % 4], [10]),  # padding of more than one tile on the left
    (lambda i: [i // 4, i % 4], [3]),
    (lambda i: [i // 4, i % 4], [16]),
]


def _value(expr, env):
    got = ember.arith.Analyzer().simplify(ember.tir.functor.substitute(expr, env))
    return got.value


@pytest.mark.parametrize("forward, shape", CASES)
def test_padding_predicate_marks_exactly_the_outputs_that_map_outside(forward, shape):
    imap = IndexMap.from_func(forward)
    inverse, padding = imap.non_surjective_inverse(shape)
    out_shape = [int(n) for n in imap.map_shape(shape)]
    reached = {tuple(int(x) for x in imap.map_indices([const(v) for v in point]))
               for point in itertools.product(*(range(n) for n in shape))}
    for point in itertools.product(*(range(n) for n in out_shape)):
        env = dict(zip(inverse.initial_indices, (const(v) for v in point)))
        back = [_value(e, env) for e in inverse.final_indices]
        inside = all(0 <= b < n for b, n in zip(back, shape))
        assert bool(_value(padding, env)) == (not inside), (point, back)
        assert inside == (point in reached)


def test_shifted_inputs_invert_with_their_offset():
    imap = IndexMap.from_func(lambda i: [(i + 5) // 32, ((i + 5) // 4) % 8, (i + 5) % 4])
    inverse, _ = imap.non_surjective_inverse([123])
    assert inverse.is_equivalent_to(IndexMap.from_func(lambda a, b, c: [32 * a + 4 * b + c - 5]))
    assert [int(n) for n in imap.map_shape([123])] == [4, 8, 4]


def test_padding_predicate_is_written_digit_by_digit():
    imap = IndexMap.from_func(lambda i: [(i + 1) // 4, (i + 1) % 4])
    inverse, padding = imap.non_surjective_inverse([14])
    a, b = inverse.initial_indices
    expected = ember.tir.Or(ember.tir.And(a == 0, b < 1), ember.tir.And(a == 3, const(3) == b))
    assert_structural_equal(padding, expected)
    imap = IndexMap.from_func(lambda i: [i // 32, (i // 4) % 8, i % 4])
    inverse, padding = imap.non_surjective_inverse([116])
    a, b, c = inverse.initial_indices
    assert_structural_equal(padding, ember.tir.And(a == 3, b * 4 + c >= 20))


def test_inner_half_of_a_padded_split_spans_the_whole_tile():
    imap = IndexMap.from_func(lambda i: [i // 4, i % 4])
    assert [int(n) for n in imap.map_shape([3])] == [1, 4]
    assert [int(n) for n in IndexMap.from_func(lambda i: [i % 4]).map_shape([3])] == [3]

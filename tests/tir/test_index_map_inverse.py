"""IndexMap: inverse only of bijective maps, non_surjective_inverse with its padding
predicate, is_equivalent_to, map_shape keeping the shape's index type, map_ndarray."""

import numpy as np
import pytest

import ember
from ember import tir
from ember.error import TVMError
from ember.ir import const
from ember.tir import IndexMap


def test_inverse_of_a_bijective_map():
    imap = IndexMap.from_func(lambda i: [i // 4, i % 4])
    assert imap.inverse([16]).is_equivalent_to(IndexMap.from_func(lambda a, b: [4 * a + b]))
    assert not imap.inverse([16]).is_equivalent_to(IndexMap.from_func(lambda a, b: [4 * b + a]))
    with pytest.raises(TVMError, match="cannot invert.*not bijective"):
        imap.inverse([14])


def test_inputs_of_extent_one_invert_to_zero():
    imap = IndexMap.from_func(lambda a, b, c, d: (d // 32, c // 2, c % 2, d % 32))
    inv = imap.inverse([1, 1, 64, 64])
    expected = IndexMap.from_func(lambda a, b, c, d: (const(0), const(0), c + b * 2, d + a * 32))
    assert expected.is_equivalent_to(inv)


def test_non_surjective_inverse_gives_the_padding_condition():
    imap = IndexMap.from_func(lambda i: [i // 4, i % 4])
    inv, pad = imap.non_surjective_inverse([14])
    assert inv.is_equivalent_to(IndexMap.from_func(lambda a, b: [4 * a + b]))
    padded = {(a, b) for a in range(4) for b in range(4) if 4 * a + b >= 14}
    got = set()
    for a in range(4):
        for b in range(4):
            value = ember.tir.functor.substitute(pad, dict(zip(inv.initial_indices, (const(a), const(b)))))
            if ember.arith.Analyzer().simplify(value).value:
                got.add((a, b))
    assert got == padded
    _, none = imap.non_surjective_inverse([16])
    assert none.value == 0


def test_map_shape_keeps_the_index_type():
    imap = IndexMap.from_func(lambda i: [i // 4, i % 4])
    assert [str(s.dtype) for s in imap.map_shape([tir.const(14, "int64")])] == ["int64", "int64"]
    assert [s.value for s in imap.map_shape([14])] == [4, 4]


def test_map_ndarray_matches_numpy():
    x = np.arange(16).astype("int8")
    out = IndexMap.from_func(lambda i: [i // 4, i % 4]).map_ndarray(ember.nd.array(x)).numpy()
    np.testing.assert_equal(out, x.reshape(4, 4))
    y = np.random.rand(3, 4, 8, 64).astype("float32")
    imap = IndexMap.from_func(lambda a, b, c, d: (d // 32, a, c // 4, d % 32 // 16, b, c % 4, d % 16))
    packed = imap.map_ndarray(ember.nd.array(y))
    np.testing.assert_equal(imap.inverse(y.shape).map_ndarray(packed).numpy(), y)

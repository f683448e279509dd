"""topi data-movement operators vs numpy."""

import numpy as np
import pytest
from topi_eval import evaluate, rand

from ember import te, topi


def test_transpose():
    A = te.placeholder((2, 3, 4), name="A")
    a = rand(2, 3, 4)
    r1, r2 = evaluate([A], [topi.transpose(A), topi.transpose(A, (1, 0, 2))], [a])
    np.testing.assert_array_equal(r1, a.transpose())
    np.testing.assert_array_equal(r2, a.transpose(1, 0, 2))
    with pytest.raises(ValueError, match="is not a permutation of 3 dimensions"):
        topi.transpose(A, (0, 0, 1))


def test_reshape():
    A = te.placeholder((2, 3, 4), name="A")
    a = rand(2, 3, 4)
    r1, r2 = evaluate([A], [topi.reshape(A, (6, 4)), topi.reshape(A, (4, -1))], [a])
    np.testing.assert_array_equal(r1, a.reshape(6, 4))
    np.testing.assert_array_equal(r2, a.reshape(4, -1))
    with pytest.raises(ValueError, match="cannot reshape 24 elements"):
        topi.reshape(A, (5, 5))


def test_expand_dims_and_squeeze():
    A = te.placeholder((3, 1, 2), name="A")
    a = rand(3, 1, 2)
    e, s_all, s_one = evaluate([A], [topi.expand_dims(A, 0, 2), topi.squeeze(A), topi.squeeze(A, 1)], [a])
    np.testing.assert_array_equal(e, a[None, None])
    np.testing.assert_array_equal(s_all, a.squeeze())
    np.testing.assert_array_equal(s_one, a.squeeze(1))
    with pytest.raises(ValueError, match="dimension 0 has extent 3, not 1"):
        topi.squeeze(A, 0)


def test_concatenate_and_split():
    A = te.placeholder((2, 3), name="A")
    B = te.placeholder((2, 2), name="B")
    a, b = rand(2, 3), rand(2, 2, seed=1)
    cat = topi.concatenate([A, B], axis=1)
    assert cat.op.name == "T_concat"
    np.testing.assert_array_equal(evaluate([A, B], cat, [a, b]), np.concatenate([a, b], 1))
    C = te.placeholder((6, 2), name="C")
    c = rand(6, 2)
    parts = evaluate([C], topi.split(C, 3, axis=0), [c])
    for got, ref in zip(parts, np.split(c, 3, 0)):
        np.testing.assert_array_equal(got, ref)
    parts = evaluate([C], topi.split(C, [1, 4], axis=0), [c])
    for got, ref in zip(parts, np.split(c, [1, 4], 0)):
        np.testing.assert_array_equal(got, ref)
    with pytest.raises(ValueError, match="not divisible into 4 sections"):
        topi.split(C, 4)


@pytest.mark.parametrize("begin,end,strides", [
    ([0, 1], [2, 4], None), ([1, 0], [3, 5], [1, 2]), ([-1, 4], [0, 0], [-1, -2]), ([0, -3], [10, 10], None),
])
def test_strided_slice(begin, end, strides):
    A = te.placeholder((3, 5), name="A")
    a = rand(3, 5)
    ref = a[tuple(slice(b, e, s) for b, e, s in zip(begin, end, strides or [1, 1]))]
    got = evaluate([A], topi.strided_slice(A, begin, end, strides), [a])
    np.testing.assert_array_equal(got, ref)


def test_take():
    A = te.placeholder((4, 3), name="A")
    I = te.placeholder((2, 2), name="I", dtype="int32")
    a = rand(4, 3)
    idx = np.array([[0, 3], [5, -1]], "int32")
    clip, wrap, flat = evaluate([A, I], [topi.take(A, I, axis=0), topi.take(A, I, axis=0, mode="wrap"),
                                         topi.take(A, I)], [a, idx])
    np.testing.assert_array_equal(clip, np.take(a, idx, axis=0, mode="clip"))
    np.testing.assert_array_equal(wrap, np.take(a, idx, axis=0, mode="wrap"))
    np.testing.assert_array_equal(flat, np.take(a, idx, mode="clip"))
    with pytest.raises(ValueError, match="mode must be 'clip', 'wrap' or 'fast'"):
        topi.take(A, I, axis=0, mode="bad")


def test_gather_and_where():
    A = te.placeholder((3, 4), name="A")
    I = te.placeholder((3, 2), name="I", dtype="int32")
    a, idx = rand(3, 4), np.array([[0, 3], [1, 1], [2, 0]], "int32")
    np.testing.assert_array_equal(evaluate([A, I], topi.gather(A, 1, I), [a, idx]),
                                  np.take_along_axis(a, idx, 1))
    C = te.placeholder((3, 1), name="C", dtype="bool")
    B = te.placeholder((4,), name="B")
    c, b = np.array([[True], [False], [True]]), rand(4, seed=2)
    np.testing.assert_array_equal(evaluate([C, A, B], topi.where(C, A, B), [c, a, b]), np.where(c, a, b))
    np.testing.assert_array_equal(evaluate([C, A], topi.where(C, A, 0.0), [c, a]), np.where(c, a, 0.0))


def test_stack_flip_tile_repeat_arange():
    A = te.placeholder((2, 3), name="A")
    B = te.placeholder((2, 3), name="B")
    a, b = rand(2, 3), rand(2, 3, seed=4)
    st, fl, ti, rp = evaluate([A, B], [topi.stack([A, B], 1), topi.flip(A, 1), topi.tile(A, (2, 1, 2)),
                                       topi.repeat(A, 2, 0)], [a, b])
    np.testing.assert_array_equal(st, np.stack([a, b], 1))
    np.testing.assert_array_equal(fl, np.flip(a, 1))
    np.testing.assert_array_equal(ti, np.tile(a, (2, 1, 2)))
    np.testing.assert_array_equal(rp, np.repeat(a, 2, 0))
    R = topi.arange(1, 3, 0.5)
    np.testing.assert_array_equal(evaluate([], R, []), np.arange(1, 3, 0.5))

"""topi reductions over axes with keepdims, and argmax/argmin."""

import numpy as np
import pytest
from topi_eval import evaluate, rand

from ember import te, topi

REDUCE = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod, "mean": np.mean}


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), ((0, 2), True), (-1, True)])
def test_reductions(name, axis, keepdims):
    A = te.placeholder((2, 3, 4), name="A")
    B = getattr(topi, name)(A, axis=axis, keepdims=keepdims)
    a = rand(2, 3, 4, low=0.5, high=1.5)
    ref = REDUCE[name](a, axis=axis, keepdims=keepdims)
    got = evaluate([A], B, [a])
    assert got.shape == np.shape(ref)
    np.testing.assert_allclose(got, ref, rtol=1e-5)


def test_reduction_names_follow_tvm():
    A = te.placeholder((2, 3), name="A")
    B = topi.sum(A, axis=1)
    assert B.op.name == "A_red"
    assert [iv.var.name for iv in B.op.reduce_axis] == ["k1"]
    assert [iv.var.name for iv in B.op.axis] == ["ax0"]


@pytest.mark.parametrize("axis", [0, 1, None])
def test_argmax_argmin(axis):
    A = te.placeholder((3, 4), name="A")
    a = rand(3, 4)
    a[1, 2] = a[1, 0] = 5.0  # a tie: the first index wins
    mx, mn = evaluate([A], [topi.argmax(A, axis=axis), topi.argmin(A, axis=axis)], [a])
    np.testing.assert_array_equal(mx, np.argmax(a, axis=axis))
    np.testing.assert_array_equal(mn, np.argmin(a, axis=axis))


def test_argmax_keepdims_and_last_index():
    A = te.placeholder((2, 3), name="A")
    a = np.array([[1, 3, 3], [2, 2, 0]], "float32")
    first, last = evaluate([A], [topi.argmax(A, axis=1, keepdims=True),
                                 topi.argmax(A, axis=1, select_last_index=True)], [a])
    np.testing.assert_array_equal(first, [[1], [0]])
    np.testing.assert_array_equal(last, [2, 1])


def test_all_any():
    A = te.placeholder((2, 3), name="A", dtype="bool")
    a = np.array([[1, 1, 1], [1, 0, 0]], bool)
    al, an = evaluate([A], [topi.all(A, axis=1), topi.any(A, axis=0)], [a])
    np.testing.assert_array_equal(al, a.all(1))
    np.testing.assert_array_equal(an, a.any(0))


def test_integer_sum():
    A = te.placeholder((3, 4), name="A", dtype="int32")
    a = rand(3, 4, dtype="int32")
    np.testing.assert_array_equal(evaluate([A], topi.sum(A, axis=0), [a]), a.sum(0))


def test_axis_out_of_range():
    A = te.placeholder((2, 3), name="A")
    with pytest.raises(ValueError, match=r"axis 2 is out of range for a tensor of 2 dimension\(s\)"):
        topi.sum(A, axis=2)
    with pytest.raises(ValueError, match=r"repeats a dimension"):
        topi.sum(A, axis=(1, -1))

"""topi einsum, sort / argsort / topk and variance / std vs numpy."""

import numpy as np
import pytest
from topi_eval import evaluate, rand

from ember import te, topi


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]), ("ii->i", [(3, 3)]),
    ("ij->", [(3, 4)]), ("i,j->ij", [(3,), (4,)]), ("ij,ij->i", [(2, 5), (2, 5)]), ("ji", [(3, 4)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
])
def test_einsum(spec, shapes):
    ins = [te.placeholder(s, name=f"T{i}") for i, s in enumerate(shapes)]
    arrays = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    got = evaluate(ins, topi.einsum(spec, *ins), arrays)
    np.testing.assert_allclose(got, np.einsum(spec, *arrays), rtol=1e-5, atol=1e-6)


def test_einsum_errors():
    A = te.placeholder((3, 4), name="A")
    with pytest.raises(ValueError, match="'...' \\(ellipsis\\) subscripts are not implemented"):
        topi.einsum("...ij->ij", A)
    with pytest.raises(ValueError, match="subscript 'ijk' has 3 letters but operand 'A' has 2"):
        topi.einsum("ijk->i", A)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("is_ascend", [True, False])
def test_sort_argsort(axis, is_ascend):
    A = te.placeholder((4, 5), name="A")
    a = rand(4, 5)
    a[1, 1] = a[1, 3] = a[2, 1] = 0.25  # ties keep their order
    s, idx = evaluate([A], [topi.sort(A, axis, is_ascend), topi.argsort(A, axis, is_ascend, "int32")], [a])
    order = np.argsort(a if is_ascend else -a, axis=axis, kind="stable")
    np.testing.assert_array_equal(idx, order)
    np.testing.assert_array_equal(s, np.take_along_axis(a, order, axis))


def test_topk():
    A = te.placeholder((3, 6), name="A")
    a = rand(3, 6)
    values, indices = evaluate([A], topi.topk(A, 2, axis=1), [a])
    order = np.argsort(-a, axis=1, kind="stable")[:, :2]
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(a, order, 1))
    with pytest.raises(ValueError, match="ret_type must be 'both', 'values' or 'indices'"):
        topi.topk(A, 2, ret_type="all")


def test_variance_std():
    A = te.placeholder((3, 4), name="A")
    a = rand(3, 4)
    v, s, vu = evaluate([A], [topi.variance(A, 1), topi.std(A, (0, 1), keepdims=True),
                              topi.variance(A, 0, unbiased=True)], [a])
    np.testing.assert_allclose(v, a.var(1), rtol=1e-5)
    np.testing.assert_allclose(s, a.std(keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(vu, a.var(0, ddof=1), rtol=1e-5)

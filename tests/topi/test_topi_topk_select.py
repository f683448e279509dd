"""topi.topk_by_selection against a stable numpy top-k (ties: lower index first)."""

import numpy as np
import pytest

import ember
from ember import te
from ember.topi.topk_select import topk_by_selection


def _numpy_topk(x, k, axis, largest):
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx


@pytest.mark.parametrize("shape,k,axis,largest", [((3, 10), 3, 1, True), ((3, 10), 4, 1, False),
                                                  ((5, 4, 6), 2, 0, True), ((2, 50), 1, -1, False)])
def test_topk_by_selection(shape, k, axis, largest):
    x = np.random.default_rng(0).integers(0, 5, shape).astype("float32")
    data = te.placeholder(shape, "float32")
    values, indices = topk_by_selection(data, k, axis, largest)
    f = ember.build(te.create_prim_func([data, values, indices]), target="llvm")
    out_shape = list(shape)
    out_shape[axis] = k
    v, i = ember.nd.array(np.zeros(out_shape, "float32")), ember.nd.array(np.zeros(out_shape, "int64"))
    f(ember.nd.array(x), v, i)
    want_v, want_i = _numpy_topk(x, k, axis % len(shape), largest)
    np.testing.assert_array_equal(v.numpy(), want_v)
    np.testing.assert_array_equal(i.numpy(), want_i)


def test_topk_by_selection_rejects_bad_k():
    with pytest.raises(ValueError, match="k=11 must be in"):
        topk_by_selection(te.placeholder((2, 10)), 11)

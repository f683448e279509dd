"""topi.scatter_nd (extern loop nest) and topi.scatter_nd_te (pure TE) against numpy."""

import numpy as np
import pytest

import ember
from ember import te
from ember.topi.scatter_nd import scatter_nd, scatter_nd_te

_COMBINE = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _numpy(data, idx, upd, mode):
    out = data.copy()
    for y in np.ndindex(*idx.shape[:-1]):
        t = tuple(idx[y])
        out[t] = upd[y] if mode == "update" else _COMBINE[mode](out[t], upd[y])
    return out


@pytest.mark.parametrize("fn", [scatter_nd, scatter_nd_te])
@pytest.mark.parametrize("mode", ["update", "add", "mul", "max", "min"])
def test_scatter_nd_repeated_and_negative_indices(fn, mode):
    rng = np.random.default_rng(0)
    data = rng.standard_normal((4, 3, 2)).astype("float32")
    idx = np.array([[[0, 1], [2, -1]], [[0, 1], [-4, 0]]], "int64")
    upd = rng.standard_normal((2, 2, 2)).astype("float32")
    d, i, u = (te.placeholder(a.shape, str(a.dtype)) for a in (data, idx, upd))
    out = fn(d, i, u, mode)
    f = ember.build(te.create_prim_func([d, i, u, out]), target="llvm")
    got = ember.nd.array(np.zeros_like(data))
    f(ember.nd.array(data), ember.nd.array(idx), ember.nd.array(upd), got)
    wrapped = np.where(idx < 0, idx + np.array(data.shape[:2]), idx)
    np.testing.assert_allclose(got.numpy(), _numpy(data, wrapped, upd, mode), rtol=1e-6)


def test_scatter_nd_errors_name_the_problem():
    d, i, u = te.placeholder((4, 3)), te.placeholder((2, 1), "int64"), te.placeholder((2,))
    with pytest.raises(ValueError, match="updates need 2 dimensions"):
        scatter_nd(d, i, u)
    with pytest.raises(ValueError, match="mode must be"):
        scatter_nd(d, i, te.placeholder((2, 3)), "mean")

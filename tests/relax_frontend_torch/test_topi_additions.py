"""topi names added for PyTorch users (nn.flatten, nn.upsampling, nn.lrn, nn.nll_loss,
tensordot, meshgrid, sequence_mask, shape, ndarray_size, unravel_index, cubic
image.resize2d/resize1d), checked
numerically against PyTorch / numpy through ember.build."""

import numpy as np
import pytest
import torch
from torch.nn import functional as F

import ember
from ember import te, topi


def run(fn, *arrays, dtypes=None):
    dtypes = dtypes or [str(a.dtype) for a in arrays]
    phs = [te.placeholder(a.shape, d, name=f"in{i}") for i, (a, d) in enumerate(zip(arrays, dtypes))]
    outs = fn(*phs)
    outs = list(outs) if isinstance(outs, list | tuple) else [outs]
    mod = ember.build(te.create_prim_func(phs + outs), target="llvm")
    bufs = [ember.nd.array(np.zeros([int(d) for d in o.shape], str(o.dtype))) for o in outs]
    mod(*[ember.nd.array(a) for a in arrays], *bufs)
    return [b.numpy() for b in bufs]


rng = np.random.default_rng(0)


def test_flatten():
    x = rng.standard_normal((2, 3, 4, 5)).astype("float32")
    np.testing.assert_array_equal(run(topi.nn.flatten, x)[0], x.reshape(2, -1))


@pytest.mark.parametrize("method, mode", [("nearest_neighbor", "nearest"), ("bilinear", "bilinear")])
def test_upsampling(method, mode):
    x = rng.standard_normal((1, 2, 3, 4)).astype("float32")
    got = run(lambda t: topi.nn.upsampling(t, 2, 2, method=method), x)[0]
    ref = F.interpolate(torch.from_numpy(x), scale_factor=2, mode=mode).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_lrn():
    x = rng.standard_normal((1, 6, 3, 3)).astype("float32")
    got = run(lambda t: topi.nn.lrn(t, 3, 1, 1e-2, 0.75, 1.0), x)[0]
    ref = F.local_response_norm(torch.from_numpy(x), 3, 1e-2, 0.75, 1.0).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss(reduction):
    logp = np.log(rng.dirichlet(np.ones(5), size=4)).astype("float32")
    target = np.array([1, 4, -100, 0], "int64")
    weight = rng.random(5).astype("float32")
    got = run(lambda p, t, w: topi.nn.nll_loss(p, t, w, reduction, -100), logp, target, weight)[0]
    ref = F.nll_loss(torch.from_numpy(logp), torch.from_numpy(target), torch.from_numpy(weight),
                     reduction=reduction, ignore_index=-100).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_nll_loss_rejects_bad_reduction():
    p, t = te.placeholder((2, 3), "float32"), te.placeholder((2,), "int64")
    with pytest.raises(ValueError, match="reduction must be 'mean', 'sum' or 'none', got 'avg'"):
        topi.nn.nll_loss(p, t, None, "avg")


def test_tensordot():
    a = rng.standard_normal((2, 3, 4)).astype("float32")
    b = rng.standard_normal((3, 4, 5)).astype("float32")
    np.testing.assert_allclose(run(lambda x, y: topi.tensordot(x, y, 2), a, b)[0], np.tensordot(a, b, 2), rtol=1e-5)
    np.testing.assert_allclose(run(lambda x, y: topi.tensordot(x, y, ([1], [0])), a, b)[0],
                               np.tensordot(a, b, ([1], [0])), rtol=1e-5)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    a, b = np.arange(3, dtype="float32"), np.arange(4, dtype="float32") * 2
    got = run(lambda x, y: topi.meshgrid([x, y], indexing), a, b)
    for g, r in zip(got, np.meshgrid(a, b, indexing=indexing)):
        np.testing.assert_array_equal(g, r)


def test_sequence_mask_shape_size_unravel():
    x = rng.standard_normal((4, 2, 3)).astype("float32")
    lengths = np.array([2, 4], "int32")
    got = run(lambda d, v: topi.sequence_mask(d, v, -1.0, 0), x, lengths)[0]
    ref = x.copy()
    ref[2:, 0] = -1.0
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(run(lambda d: topi.shape(d), x)[0], [4, 2, 3])
    assert run(lambda d: topi.ndarray_size(d), x)[0] == 24
    idx = np.array([0, 5, 23], "int64")
    np.testing.assert_array_equal(run(lambda i: topi.unravel_index(i, (4, 2, 3)), idx)[0],
                                  np.stack(np.unravel_index(idx, (4, 2, 3))))


def _cubic_1d_reference(x, out_size, alpha, exclude):
    """Keys' cubic convolution along the last axis, half-pixel coordinates (numpy)."""
    n_in = x.shape[-1]
    out = np.zeros(x.shape[:-1] + (out_size,), "float64")
    for o in range(out_size):
        c = (o + 0.5) * n_in / out_size - 0.5
        lo = int(np.floor(c))
        weights, index = [], []
        for k in (-1, 0, 1, 2):
            d = abs(c - (lo + k))
            w = ((alpha + 2) * d - (alpha + 3)) * d * d + 1 if d <= 1 else ((alpha * d - 5 * alpha) * d + 8 * alpha) * d - 4 * alpha
            inside = 0 <= lo + k < n_in
            weights.append(0.0 if exclude and not inside else w)
            index.append(min(max(lo + k, 0), n_in - 1))
        total = sum(weights) if exclude else 1.0
        out[..., o] = sum(w / total * x[..., i] for w, i in zip(weights, index))
    return out


@pytest.mark.parametrize("align_corners", [False, True])
def test_resize2d_cubic_matches_torch_bicubic(align_corners):
    x = rng.standard_normal((1, 2, 4, 5)).astype("float32")
    mode = "align_corners" if align_corners else "half_pixel"
    got = run(lambda t: topi.image.resize2d(t, None, (7, 9), "NCHW", "cubic", mode, bicubic_alpha=-0.75), x)[0]
    ref = F.interpolate(torch.from_numpy(x), size=(7, 9), mode="bicubic", align_corners=align_corners).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("exclude", [0, 1])
def test_resize1d_cubic_alpha_and_exclude(exclude):
    x = rng.standard_normal((1, 3, 5)).astype("float32")
    got = run(lambda t: topi.image.resize1d(t, None, (8,), "NCW", "cubic", "half_pixel", bicubic_alpha=-0.5,
                                            bicubic_exclude=exclude), x)[0]
    np.testing.assert_allclose(got, _cubic_1d_reference(x.astype("float64"), 8, -0.5, exclude), rtol=1e-5, atol=1e-5)


def test_resize_method_error_names_the_choices():
    x = te.placeholder((1, 1, 2, 2), "float32")
    with pytest.raises(ValueError, match="method must be 'nearest_neighbor', 'linear' or 'cubic', got 'area'"):
        topi.image.resize2d(x, None, (4, 4), "NCHW", "area")

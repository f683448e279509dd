"""topi extras: transposed convolution, dilate, scans, one_hot, trilu, instance_norm."""

import numpy as np
import pytest
from topi_eval import evaluate, rand

from ember import te, topi


def conv_transpose_ref(x, w, stride, pad, output_padding):
    n = x.ndim - 2
    ksize = w.shape[2:]
    full_sp = [(x.shape[2 + i] - 1) * stride[i] + ksize[i] + output_padding[i] for i in range(n)]
    full = np.zeros((x.shape[0], w.shape[1], *full_sp), dtype=np.float64)
    for pos in np.ndindex(*x.shape[2:]):
        for kpos in np.ndindex(*ksize):
            out = tuple(p * s + k for p, s, k in zip(pos, stride, kpos))
            contrib = np.einsum("nc,co->no", x[(slice(None), slice(None)) + pos], w[(slice(None), slice(None)) + kpos])
            full[(slice(None), slice(None)) + out] += contrib
    crop = tuple(slice(pad[i], full_sp[i] - pad[n + i]) for i in range(n))
    return full[(slice(None), slice(None)) + crop].astype(x.dtype)


@pytest.mark.parametrize("stride,padding,output_padding", [((1, 1), 0, (0, 0)), ((2, 2), 1, (1, 1)),
                                                            ((2, 1), (1, 0, 0, 1), (0, 0))])
def test_conv2d_transpose(stride, padding, output_padding):
    X = te.placeholder((1, 3, 4, 5), name="X")
    W = te.placeholder((3, 2, 3, 3), name="W")
    x, w = rand(1, 3, 4, 5), rand(3, 2, 3, 3, seed=1)
    out = topi.nn.conv2d_transpose_nchw(X, W, stride, padding, None, output_padding)
    pads = [padding] * 4 if isinstance(padding, int) else list(padding)
    ref = conv_transpose_ref(x, w, stride, pads, output_padding)
    got = evaluate([X, W], out, [x, w])
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


def test_conv1d_transpose():
    X = te.placeholder((2, 2, 5), name="X")
    W = te.placeholder((2, 3, 4), name="W")
    x, w = rand(2, 2, 5), rand(2, 3, 4, seed=2)
    got = evaluate([X, W], topi.nn.conv1d_transpose_ncw(X, W, 2, 1), [x, w])
    np.testing.assert_allclose(got, conv_transpose_ref(x, w, (2,), [1, 1], (0,)), rtol=1e-4, atol=1e-5)


def test_dilate():
    X = te.placeholder((2, 3), name="X")
    x = rand(2, 3)
    ref = np.zeros((3, 7), "float32")
    ref[::2, ::3] = x
    np.testing.assert_array_equal(evaluate([X], topi.nn.dilate(X, (2, 3)), [x]), ref)
    with pytest.raises(ValueError, match=r"need 2 strides \(one per dimension\), got 1"):
        topi.nn.dilate(X, (2,))


def test_cumsum_cumprod():
    X = te.placeholder((3, 4), name="X")
    x = rand(3, 4, low=0.5, high=1.5)
    cs, cp, ex, fl = evaluate([X], [topi.cumsum(X, 1), topi.cumprod(X, 0), topi.cumsum(X, 1, exclusive=True),
                                    topi.cumsum(X)], [x])
    np.testing.assert_allclose(cs, np.cumsum(x, 1), rtol=1e-5)
    np.testing.assert_allclose(cp, np.cumprod(x, 0), rtol=1e-5)
    np.testing.assert_allclose(ex, np.cumsum(x, 1) - x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fl, np.cumsum(x), rtol=1e-5)


def test_one_hot_and_trilu():
    I = te.placeholder((3,), name="I", dtype="int32")
    idx = np.array([0, 2, 1], "int32")
    oh = evaluate([I], topi.one_hot(I, 1.0, 0.0, 4, -1, "float32"), [idx])
    np.testing.assert_array_equal(oh, np.eye(4, dtype="float32")[idx])
    X = te.placeholder((2, 3, 3), name="X")
    x = rand(2, 3, 3)
    up, lo = evaluate([X], [topi.trilu(X, 1, True), topi.trilu(X, 0, False)], [x])
    np.testing.assert_array_equal(up, np.triu(x, 1))
    np.testing.assert_array_equal(lo, np.tril(x, 0))


def test_instance_norm_and_matmul_alias():
    X = te.placeholder((2, 3, 4), name="X")
    G = te.placeholder((3,), name="G")
    B = te.placeholder((3,), name="B")
    x, g, b = rand(2, 3, 4), rand(3, seed=1), rand(3, seed=2)
    got = evaluate([X, G, B], topi.nn.instance_norm(X, G, B, 1, [2]), [x, g, b])
    ref = (x - x.mean(2, keepdims=True)) / np.sqrt(x.var(2, keepdims=True) + 1e-5) * g[:, None] + b[:, None]
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)
    M = te.placeholder((3, 4), name="M")
    m = rand(3, 4)
    np.testing.assert_allclose(evaluate([M], topi.matmul(M, M, transp_b=True), [m]), m @ m.T, rtol=1e-5)

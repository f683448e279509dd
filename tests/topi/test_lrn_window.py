"""topi.nn.lrn_channels / lrn_nchwc (ONNX's LRN as one kernel, plain and channel-blocked)
against a float64 numpy LRN: odd and even windows, the beta = 0.75 / 0.5 / 1 shortcuts and the
general pow, a window wider than a block's edge; the blocked kernel's schedule on 2 threads."""

import numpy as np
import pytest

import ember as tvm
from ember import te, topi

RNG = np.random.default_rng(7)


def lrn_ref(x, size, alpha, beta, bias):
    """ONNX's LRN over axis 1: channels c - (size-1)//2 … c + size//2, zeros outside."""
    c = x.shape[1]
    before, after = (size - 1) // 2, size // 2
    sq = np.asarray(x, "float64") ** 2
    pad = [(0, 0)] * x.ndim
    pad[1] = (before, after)
    sq = np.pad(sq, pad)
    total = sum(sq[:, k:k + c] for k in range(size))
    return x / (bias + alpha / size * total) ** beta


def to_blocked(x, b):
    n, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, c // b, b, h, w).transpose(0, 1, 3, 4, 2))


def run(func, *arrays, out_shape, dtype="float32"):
    kernel = tvm.build(func, target="llvm")
    args = [tvm.nd.array(a) for a in arrays] + [tvm.nd.array(np.zeros(out_shape, dtype))]
    kernel(*args)
    return args[-1].numpy()


@pytest.mark.parametrize("size,beta", [(5, 0.75), (4, 0.75), (1, 0.5), (3, 1.0), (6, 0.6), (2, 0.75)])
def test_lrn_channels_matches_numpy(size, beta):
    x = (RNG.standard_normal((2, 7, 5, 6)) * 4).astype("float32")
    data = te.placeholder(x.shape, "float32", name="data")
    out = topi.nn.lrn_channels(data, size, 1e-2, beta, 2.0)
    got = run(te.create_prim_func([data, out]), x, out_shape=x.shape)
    np.testing.assert_allclose(got, lrn_ref(x, size, 1e-2, beta, 2.0), rtol=2e-6, atol=1e-6)


def test_lrn_channels_rank3():
    x = RNG.standard_normal((1, 9, 11)).astype("float32")
    data = te.placeholder(x.shape, "float32", name="data")
    out = topi.nn.lrn_channels(data, 3, 1e-1, 0.75, 1.0)
    got = run(te.create_prim_func([data, out]), x, out_shape=x.shape)
    np.testing.assert_allclose(got, lrn_ref(x, 3, 1e-1, 0.75, 1.0), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("block,channels,size,beta", [(16, 64, 5, 0.75), (8, 24, 5, 0.75), (8, 16, 4, 0.6),
                                                      (4, 12, 9, 1.0), (16, 16, 3, 0.5)])
def test_lrn_nchwc_matches_numpy(block, channels, size, beta):
    x = (RNG.standard_normal((1, channels, 6, 5)) * 10).astype("float32")
    xb = to_blocked(x, block)
    data = te.placeholder(xb.shape, "float32", name="data")
    out = topi.nn.lrn_nchwc(data, size, 1e-3, beta, 1.0)
    func = topi.nn.schedule_lrn_nchwc(te.create_prim_func([data, out]))
    assert func.attrs["tir.is_scheduled"]
    with tvm.target.Target("llvm"):
        got = run(func, xb, out_shape=xb.shape)
    np.testing.assert_allclose(got, to_blocked(lrn_ref(x, size, 1e-3, beta, 1.0), block), rtol=2e-6, atol=1e-6)


def test_lrn_nchwc_parallel_pixels_do_not_share_the_square_buffer():
    # the pixel loop is parallel: each pixel's squares must live in a buffer of its own
    x = (RNG.standard_normal((2, 32, 17, 19)) * 10).astype("float32")
    xb = to_blocked(x, 16)
    data = te.placeholder(xb.shape, "float32", name="data")
    func = topi.nn.schedule_lrn_nchwc(te.create_prim_func([data, topi.nn.lrn_nchwc(data, 5, 1e-2, 0.75, 1.0)]))
    got = run(func, xb, out_shape=xb.shape)
    np.testing.assert_allclose(got, to_blocked(lrn_ref(x, 5, 1e-2, 0.75, 1.0), 16), rtol=2e-6, atol=1e-6)


def test_lrn_window_errors():
    with pytest.raises(ValueError, match="size must be positive"):
        topi.nn.lrn_window_bounds(0)
    with pytest.raises(ValueError, match="reaches past the next block"):
        topi.nn.lrn_nchwc(te.placeholder((1, 2, 3, 3, 4), "float32"), 11)
    with pytest.raises(ValueError, match="rank 4"):
        topi.nn.lrn_nchwc(te.placeholder((1, 8, 3, 3), "float32"), 5)
    with pytest.raises(ValueError, match="channel axis"):
        topi.nn.lrn_channels(te.placeholder((8,), "float32"), 5)


def test_lrn_nchwc_lowers_to_whole_vectors():
    # squares stored block by block and the taps read at flat offsets: no per-lane block/lane
    # index arithmetic (a gather) left in the lowered kernel
    data = te.placeholder((1, 3, 4, 4, 16), "float32", name="data")
    func = topi.nn.schedule_lrn_nchwc(te.create_prim_func([data, topi.nn.lrn_nchwc(data, 5)]))
    text = tvm.lower(func).script()
    assert "T.parallel" in text and "//" not in text and "%" not in text
    assert text.count(":cb * 16 + ") >= 5  # the five taps, 16-lane slices of the squares buffer
